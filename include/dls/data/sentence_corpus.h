// Sentences for a language model: a plain-text file (one sentence per line) or one side
// of a translation corpus (TSV or DLStudio archive, read by corpus.h), normalised as the
// corpus reader normalises (normalize.h) and filtered by length.
//
// The format is detected from the content (after an optional gzip layer): a pickle is a
// DLStudio archive, text with a tab on any line is TSV, other text is one sentence per line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dls/data/normalize.h"

namespace dls::data {

struct SentenceCorpus {
  std::vector<std::vector<std::string>> sentences;  // normalised words, no SOS/EOS
  std::string source;                               // the file read
  std::string format;                               // "text", "TSV" or "DLStudio archive"
  std::size_t lines_read = 0;                       // text: non-blank lines; TSV/archive: pairs read
  std::size_t too_long = 0;                         // more than max_words words
  std::size_t empty = 0;                            // no word left after normalisation (or a malformed pair)
  // "2341 sentences (Spanish side of a TSV file): 2400 read, 59 longer than 12 words, 0 empty"
  std::string summary(Language language, int max_words) const;
};

// A TSV corpus (Tatoeba's English<TAB>Spanish<TAB>attribution) has a tab on every line, while
// plain text may hold a stray one ("Ella dijo:<TAB>hola"): TSV only when at least half of the
// non-blank lines have a tab, so that one tab does not turn a text into pairs and drop every
// other line as malformed.
bool mostly_tab_separated(const std::string& bytes);

// Reads `path`; `language` picks the TSV side and the normalisation rules. Throws
// std::runtime_error naming the file when it is missing, empty or has no usable sentence.
SentenceCorpus read_sentence_corpus(const std::string& path, Language language, int max_words);

// "es" / "en" -> the language; throws std::invalid_argument for another name.
Language parse_side(const std::string& side);
std::string side_name(Language language);  // "es" / "en"

}  // namespace dls::data
