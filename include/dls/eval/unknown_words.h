// Unknown words replaced in translations, as OpenNMT's -replace_unk does: each <unk> the
// decoder wrote becomes the source word that the step writing it attended to most -- its
// word alignment (word_alignment.h). A name or number the vocabularies left out ("Tom" in
// "Tom is here.", after --min-count or --max-vocab) is then copied instead of lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <torch/types.h>

#include "dls/data/normalize.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/translator.h"
#include "dls/models/translation_model.h"

namespace dls::eval {

// True when `tokens` (words or pieces) hold <unk>.
bool has_unknown(const std::vector<std::string>& tokens);

// The word alignment of each output that has_unknown() (empty for the others): rows of
// src [N, S] (on the model's device, padded as trained), each with its source tokens and
// its output tokens (no SOS or EOS; `target` gives their ids), read by a teacher-forced pass
// of `batch_size` rows at a time over targets of `positions` positions (SOS, the output,
// EOS when it fits; the model's L, or the decoding's max_length). The last layer's
// cross-attention, heads averaged, as Translator::alignment reads it.
std::vector<std::vector<AlignmentPoint>> unknown_word_alignments(
    const TranslationModel& model, const torch::Tensor& src, const std::vector<const Translator::TokenList*>& sources,
    const std::vector<const Translator::TokenList*>& outputs, const data::Vocabulary& target, std::int64_t positions,
    std::int64_t batch_size);

// Each "<unk>" of `output_words` replaced by the source word `alignment` aligns it to
// (target word i with source word j: source_words[j]); returns how many were replaced.
std::size_t replace_unknown_words(std::vector<std::string>& output_words, const std::vector<std::string>& source_words,
                                  const std::vector<AlignmentPoint>& alignment);

// How the normalised `word` is spelt in `source` (the sentence as given, in `language`): the
// first whitespace-separated chunk that normalises to exactly `word`, less the characters at
// its ends that normalise to nothing ("Tom" for "tom" in "Is Tom here?", "3,000" for "3000");
// `word` itself when no chunk does.
std::string source_spelling(std::string_view source, const std::string& word, data::Language language);

// `words` as people read them: each word that replaced an <unk> of `decoded` (the same words
// before the replacement) spelt as in `source` (source_spelling).
std::vector<std::string> spelt_as_source(const std::vector<std::string>& decoded, std::vector<std::string> words,
                                         std::string_view source, data::Language language);

}  // namespace dls::eval
