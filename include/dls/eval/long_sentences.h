// Sentences longer than a seq2seq model was trained on (its --max-words: L - 2 tokens).
//
// The layouts with per-position weights (positionwise, vaswani) read any length: sinusoidal
// positions are computed for every position, so such a sentence is decoded whole, up to
// decode_positions() positions. The dlstudio layout cannot: each head's WQ/WK/WV is
// Linear(L*s, L*s) and its FFN Linear(L*M, 2*L*M), over exactly L positions. A longer
// sentence is cut into parts that fit -- at sentence ends first, then at clause marks, and
// a clause still too long at the word limit -- each part is translated on its own and the
// translations are joined in order (join_parts()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dls/data/normalize.h"

namespace dls::eval {

// Positions (SOS, the words, EOS) a translation of a source of `source_tokens` tokens may
// take, for a model trained on `trained_length` = L positions: L while the source fits
// (as trained, so such translations are those of before), else room for
// 3/2 * source_tokens + 10 words, since a translation is rarely much longer than its source.
std::int64_t decode_positions(std::int64_t source_tokens, std::int64_t trained_length);

// One part of a source sentence that fits the model.
struct SourcePart {
  std::vector<std::string> tokens;  // what the encoder reads, at most `limit` of them
  std::size_t sentence = 0;         // the sentence of the input it comes from (index into SplitSource::sentences)
  std::string mark;                 // the clause mark (",", ";", ...) after it in the source, within its sentence
};

struct SplitSource {
  std::vector<std::string> sentences;  // the input's sentences, as written
  std::vector<SourcePart> parts;       // in the input's order
  bool at_sentences = false;           // cut at sentence ends,
  bool at_clauses = false;             // at clause marks,
  bool at_word_limit = false;          // within a clause
};

// A text (a sentence, a clause, a word) -> the model's tokens: its normalised words, or their
// subword pieces.
using Tokenize = std::function<std::vector<std::string>(std::string_view text)>;

// `text` cut into parts of at most `limit` tokens. Sentences are never put together (the
// model was trained on one at a time); within a sentence that does not fit, consecutive
// clauses are, as many as fit. A clause over the limit is cut between its words into
// parts of about equal size, and a single word over it (subword pieces) into runs of
// `limit` tokens. A sentence without tokens ("!!!") gives no part.
SplitSource split_to_fit(std::string_view text, const Tokenize& tokenize, std::size_t limit);

// The sentences of `text`, trimmed, each with its closing marks: cut after a run of
// . ! ? … (and closing quotes or brackets) followed by a space or the end, and after
// 。！？ anywhere. "3.5" and "e.g.x" are not cut.
std::vector<std::string> split_sentences(std::string_view text);

// The clauses of a sentence, trimmed, each with its mark: cut after , ; : followed by a
// space or the end ("3,000" and "7:30" are not cut), after a dash between spaces, and after
// — – 、 ， ； ： anywhere.
std::vector<std::string> split_clauses(std::string_view sentence);

// The translation of a split source for people: each sentence's parts joined (a part's
// clause mark after its words), capitalised and closed as its source sentence
// (data::detokenize), the sentences joined by spaces. `part_words`: the output words of
// each part of `split`, in order; the languages are ISO 639 codes.
std::string join_parts(const SplitSource& split, const std::vector<std::vector<std::string>>& part_words,
                       const std::string& source_language, const std::string& target_language);

}  // namespace dls::eval
