// Word alignment read from a translation's cross-attention: for each output word, the source
// word the last decoder layer attended to most (its heads averaged) at the step that wrote
// the word, the "hard" alignment that fairseq's
// --print-alignment and Marian's --alignment print as "0-0 1-2 ...".
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/eval/translator.h"

namespace dls::eval {

// From `maps` (Translator::attention): rows writing "EOS" and columns named "SOS" or "EOS" are
// skipped (a translation in parts has them once per part), and SentencePiece pieces ("▁" starts a word)
// are merged to their words: a target word is aligned to each source word one of its pieces
// is aligned to. Sorted by target word, then source word, without repeats.
std::vector<AlignmentPoint> hard_alignment(const TranslationAttention& maps);

// The same from one map of a teacher-forced pass: `weights` [rows, cols] (a layer's heads
// averaged), row i the query that reads target label i and predicts label i+1, column j
// source label j; the labels "SOS", tokens, "EOS", as the pass read them.
std::vector<AlignmentPoint> hard_alignment(const std::vector<std::string>& source_labels,
                                           const std::vector<std::string>& target_labels, const torch::Tensor& weights);

// "0-0 1-2 2-1": source-target pairs as fairseq and Marian print them.
std::string alignment_text(const std::vector<AlignmentPoint>& points);

}  // namespace dls::eval
