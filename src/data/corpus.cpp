#include "dls/data/corpus.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include "dls/data/normalize.h"
#include "dls/data/pickle.h"
#include "dls/util/file_io.h"
#include "dls/util/utf8.h"

namespace dls::data {

namespace {

constexpr int kLoggedBadLines = 5;  // bad lines logged (debug) per file; the rest only counted

// Normalises, filters and counts pairs; locations are "file:line" (TSV) or
// "file: entry N" (archive).
class PairCollector {
 public:
  PairCollector(Corpus& corpus, const CorpusOptions& options, bool lines)
      : corpus_(corpus), max_words_(static_cast<std::size_t>(options.max_words)), lines_(lines) {
    if (options.max_words < 1) {
      throw std::invalid_argument(corpus.source + ": max_words must be at least 1, got " +
                                  std::to_string(options.max_words));
    }
    corpus_.max_words = options.max_words;
  }

  // Counts a dropped line in `counter`; the first few are logged with `why`.
  void drop(std::size_t CorpusStats::*counter, std::size_t number, const char* why) {
    ++(corpus_.stats.*counter);
    if (counter == &CorpusStats::too_long || counter == &CorpusStats::blank) return;
    if (logged_++ < kLoggedBadLines) {
      spdlog::debug("{}{}{}: {}, skipped", corpus_.source, lines_ ? ":" : ": entry ", number, why);
    }
  }

  // Both texts must already be known to be valid UTF-8.
  void add(std::string_view english, std::string_view spanish, std::size_t number) {
    // Scratch vectors keep their capacity from line to line; a kept pair gets vectors of
    // exactly its size (most words fit in std::string's small-string buffer).
    english_.clear();
    spanish_.clear();
    normalize_words(english, Language::kEnglish, english_);
    normalize_words(spanish, Language::kSpanish, spanish_);
    if (english_.empty() || spanish_.empty()) {
      drop(&CorpusStats::empty, number, "a side has no word after normalisation");
    } else if (english_.size() > max_words_ || spanish_.size() > max_words_) {
      drop(&CorpusStats::too_long, number, "too long");
    } else {
      corpus_.pairs.push_back({{std::make_move_iterator(english_.begin()), std::make_move_iterator(english_.end())},
                               {std::make_move_iterator(spanish_.begin()), std::make_move_iterator(spanish_.end())}});
      ++corpus_.stats.pairs_kept;
    }
  }

  void finish() const {
    if (corpus_.pairs.empty()) {
      throw std::runtime_error(corpus_.source + ": no usable sentence pairs (" +
                               corpus_.stats.summary(corpus_.max_words) + ")");
    }
    spdlog::debug("{}: {}", corpus_.source, corpus_.stats.summary(corpus_.max_words));
  }

 private:
  Corpus& corpus_;
  std::size_t max_words_;
  bool lines_;
  int logged_ = 0;
  std::vector<std::string> english_, spanish_;
};

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// "SOS i will kill him EOS EOS" -> "i will kill him".
std::string_view strip_markers(std::string_view text) {
  const auto trim = [](std::string_view s) {
    const std::size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::string_view();
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
  };
  const auto is_token = [](std::string_view s, std::size_t at, std::string_view token) {
    if (s.compare(at, token.size(), token) != 0) return false;
    const bool left_ok = at == 0 || s[at - 1] == ' ' || s[at - 1] == '\t';
    const bool right_ok = at + token.size() == s.size() || s[at + token.size()] == ' ' || s[at + token.size()] == '\t';
    return left_ok && right_ok;
  };
  text = trim(text);
  if (text.size() >= 3 && is_token(text, 0, "SOS")) text = trim(text.substr(3));
  while (text.size() >= 3 && is_token(text, text.size() - 3, "EOS")) {
    text = trim(text.substr(0, text.size() - 3));
  }
  return text;
}

}  // namespace

std::string CorpusStats::summary(int max_words) const {
  return std::to_string(lines_read) + " lines read, " + std::to_string(pairs_kept) +
         " pairs kept; dropped: " + std::to_string(too_long) + " too long (> " + std::to_string(max_words) +
         " words), " + std::to_string(empty) + " empty, " + std::to_string(malformed) + " malformed, " +
         std::to_string(invalid_utf8) + " invalid UTF-8, " + std::to_string(blank) + " blank";
}

Corpus parse_tsv_corpus(const std::string& text, const std::string& name, const CorpusOptions& options) {
  Corpus corpus;
  corpus.source = name;
  corpus.format = CorpusFormat::kTsv;
  PairCollector collector(corpus, options, /*lines=*/true);
  std::string_view rest(text);
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // byte-order mark
  if (rest.empty()) throw std::runtime_error(name + ": empty corpus file");

  corpus.pairs.reserve(static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + 1);
  std::size_t number = 0;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    ++number;
    ++corpus.stats.lines_read;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_blank(line)) {
      collector.drop(&CorpusStats::blank, number, "blank");
      continue;
    }
    if (!util::is_valid_utf8(line)) {
      collector.drop(&CorpusStats::invalid_utf8, number, "invalid UTF-8");
      continue;
    }
    const std::size_t tab1 = line.find('\t');
    const std::size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab1 == std::string_view::npos) {
      collector.drop(&CorpusStats::malformed, number, "no tab (expected English<TAB>Spanish)");
      continue;
    }
    if (tab2 != std::string_view::npos && line.find('\t', tab2 + 1) != std::string_view::npos) {
      collector.drop(&CorpusStats::malformed, number, "more than 3 tab-separated fields");
      continue;
    }
    const std::string_view spanish = line.substr(tab1 + 1, tab2 == std::string_view::npos ? tab2 : tab2 - tab1 - 1);
    collector.add(line.substr(0, tab1), spanish, number);
  }
  collector.finish();
  return corpus;
}

Corpus parse_archive_corpus(const std::string& pickle_bytes, const std::string& name, const CorpusOptions& options) {
  Corpus corpus;
  corpus.source = name;
  corpus.format = CorpusFormat::kDlstudioArchive;
  PairCollector collector(corpus, options, /*lines=*/false);
  const PickleValue root = parse_pickle(pickle_bytes, name);
  const PickleValue* dataset = &root;
  if ((root.is(PickleValue::Kind::kTuple) || root.is(PickleValue::Kind::kList)) && !root.items().empty()) {
    dataset = &root.items()[0];
  }
  if (!dataset->is(PickleValue::Kind::kDict)) {
    std::string found = PickleValue::kind_name(root.kind());
    if (dataset != &root) found += std::string(" whose first item has type ") + PickleValue::kind_name(dataset->kind());
    throw std::runtime_error(name +
                             ": not a DLStudio archive: expected a dict int -> [english, spanish]"
                             " or a tuple starting with one, found type " +
                             found);
  }
  std::size_t number = 0, text_bytes = 0;
  for (const auto& [key, value] : dataset->entries()) {
    ++number;
    ++corpus.stats.lines_read;
    const bool is_pair = (value.is(PickleValue::Kind::kList) || value.is(PickleValue::Kind::kTuple)) &&
                         value.items().size() == 2 && value.items()[0].is(PickleValue::Kind::kString) &&
                         value.items()[1].is(PickleValue::Kind::kString);
    if (!key.is(PickleValue::Kind::kInt) || !is_pair) {
      collector.drop(&CorpusStats::malformed, number, "entry is not int -> [english, spanish]");
      continue;
    }
    const std::string& english = value.items()[0].as_string();
    const std::string& spanish = value.items()[1].as_string();
    text_bytes += english.size() + spanish.size();
    if (text_bytes > options.max_text_bytes) {
      throw std::runtime_error(
          name + ": entry " + std::to_string(number) + ": the archive's sentences add up to more than " +
          std::to_string(options.max_text_bytes) + " bytes (from a pickle of " + std::to_string(pickle_bytes.size()) +
          " bytes that shares strings between entries?); refused");
    }
    if (!util::is_valid_utf8(english) || !util::is_valid_utf8(spanish)) {
      collector.drop(&CorpusStats::invalid_utf8, number, "invalid UTF-8");
      continue;
    }
    collector.add(strip_markers(english), strip_markers(spanish), number);
  }
  collector.finish();
  return corpus;
}

Corpus read_corpus(const std::string& path, const CorpusOptions& options) {
  std::string bytes = util::read_file(path);
  if (bytes.empty()) throw std::runtime_error(path + ": empty corpus file");
  if (util::is_gzip(bytes)) bytes = util::gunzip(bytes, path);
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80) {  // pickle PROTO
    return parse_archive_corpus(bytes, path, options);
  }
  // Two kinds of file that would otherwise fail as TSV with a misleading message.
  if (bytes.size() > 262 && bytes.compare(257, 5, "ustar") == 0) {
    throw std::runtime_error(path +
                             ": a tar archive, not a corpus: DLStudio's \"*.tar.gz\" archives are "
                             "gzip-compressed pickles; extract the TSV or pickle file from this tar and give that");
  }
  if (bytes.size() >= 2 && std::string("(}]").find(bytes[0]) != std::string::npos && bytes.back() == '.') {
    throw std::runtime_error(path +
                             ": looks like a pickle of protocol 0 or 1, which is not supported: re-save it "
                             "with protocol 2 or later (pickle.dump(obj, f, protocol=2)), as DLStudio's archives are");
  }
  return parse_tsv_corpus(bytes, path, options);
}

}  // namespace dls::data
