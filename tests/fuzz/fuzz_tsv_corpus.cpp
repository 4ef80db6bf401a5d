// The TSV corpus reader and the sentence normaliser on any text; the first byte picks the
// word limit. Every pair kept must respect it and have words on both sides.
#include <cstdlib>
#include <exception>

#include "dls/data/corpus.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  dls::data::CorpusOptions options;
  options.max_words = 1 + data[0] % 16;
  try {
    const auto corpus = dls::data::parse_tsv_corpus(dls::fuzz::as_string(data + 1, size - 1), "fuzz", options);
    const auto& s = corpus.stats;
    if (s.pairs_kept + s.too_long + s.empty + s.malformed + s.invalid_utf8 + s.blank != s.lines_read) std::abort();
    for (const auto& pair : corpus.pairs) {
      if (pair.english.empty() || pair.spanish.empty()) std::abort();
      if (static_cast<int>(pair.english.size()) > options.max_words) std::abort();
      if (static_cast<int>(pair.spanish.size()) > options.max_words) std::abort();
      for (const auto& word : pair.english) {
        if (word.empty() || word.find(' ') != std::string::npos) std::abort();
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
