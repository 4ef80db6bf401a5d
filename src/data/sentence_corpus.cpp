#include "dls/data/sentence_corpus.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "dls/data/corpus.h"
#include "dls/util/file_io.h"
#include "dls/util/utf8.h"

namespace dls::data {

namespace {

// Keeps the sentence when it has 1..max_words words.
void keep(SentenceCorpus& corpus, std::vector<std::string> words, int max_words) {
  if (words.empty()) {
    ++corpus.empty;
  } else if (words.size() > static_cast<std::size_t>(max_words)) {
    ++corpus.too_long;
  } else {
    corpus.sentences.push_back(std::move(words));
  }
}

}  // namespace

bool mostly_tab_separated(const std::string& bytes) {
  std::size_t lines = 0, with_tab = 0;
  for (std::size_t start = 0; start < bytes.size();) {
    const auto end = std::min(bytes.find('\n', start), bytes.size());
    const std::string_view line(bytes.data() + start, end - start);
    if (line.find_first_not_of(" \r\f\v") != std::string_view::npos) {
      ++lines;
      if (line.find('\t') != std::string_view::npos) ++with_tab;
    }
    start = end + 1;
  }
  return with_tab > 0 && 2 * with_tab >= lines;
}

std::string SentenceCorpus::summary(Language language, int max_words) const {
  std::ostringstream out;
  out << sentences.size() << " sentences (";
  if (format == "text") {
    out << "text, " << (language == Language::kSpanish ? "Spanish" : "English") << " normalisation";
  } else {
    out << (language == Language::kSpanish ? "Spanish" : "English") << " side of a " << format;
  }
  out << "): " << lines_read << " read, ";
  if (max_words != std::numeric_limits<int>::max()) out << too_long << " longer than " << max_words << " words, ";
  out << empty << " empty or unusable";
  return out.str();
}

SentenceCorpus read_sentence_corpus(const std::string& path, Language language, int max_words) {
  std::string bytes = util::read_file(path);
  if (bytes.empty()) throw std::runtime_error(path + ": empty corpus file");
  if (util::is_gzip(bytes)) bytes = util::gunzip(bytes, path);
  SentenceCorpus corpus;
  corpus.source = path;
  const bool archive = !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80;  // pickle PROTO
  if (archive || mostly_tab_separated(bytes)) {
    // Pairs of any length; the length limit applies to the chosen side alone.
    CorpusOptions options;
    options.max_words = std::numeric_limits<int>::max();
    const auto pairs = archive ? parse_archive_corpus(bytes, path, options) : parse_tsv_corpus(bytes, path, options);
    corpus.format = archive ? "DLStudio archive" : "TSV file";
    corpus.lines_read = pairs.stats.lines_read - pairs.stats.blank;
    corpus.empty = corpus.lines_read - pairs.stats.pairs_kept;
    for (const auto& pair : pairs.pairs) {
      keep(corpus, language == Language::kSpanish ? pair.spanish : pair.english, max_words);
    }
  } else {
    corpus.format = "text";
    std::istringstream in(bytes);
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \r\n\f\v") == std::string::npos) continue;  // blank
      ++corpus.lines_read;
      if (!util::is_valid_utf8(line)) {  // dropped and counted, as a TSV file's lines are
        ++corpus.empty;
        continue;
      }
      keep(corpus, normalize_words(line, language), max_words);
    }
  }
  if (corpus.sentences.empty()) {
    throw std::runtime_error(path + ": no usable sentence (" + corpus.summary(language, max_words) + ")");
  }
  return corpus;
}

Language parse_side(const std::string& side) {
  if (side == "es") return Language::kSpanish;
  if (side == "en") return Language::kEnglish;
  throw std::invalid_argument("unknown side '" + side + "' (expected es or en)");
}

std::string side_name(Language language) { return language == Language::kSpanish ? "es" : "en"; }

}  // namespace dls::data
