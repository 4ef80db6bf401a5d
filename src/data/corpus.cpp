#include "dls/data/corpus.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "dls/data/languages.h"
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
      : corpus_(corpus),
        max_words_(static_cast<std::size_t>(options.max_words)),
        lines_(lines),
        src_rules_(language_rules(options.src_lang)),
        tgt_rules_(language_rules(options.tgt_lang)),
        reverse_(options.reverse) {
    if (options.max_words < 1) {
      throw std::invalid_argument(corpus.source + ": max_words must be at least 1, got " +
                                  std::to_string(options.max_words));
    }
    corpus_.max_words = options.max_words;
    corpus_.source_language = options.reverse ? options.tgt_lang : options.src_lang;
    corpus_.target_language = options.reverse ? options.src_lang : options.tgt_lang;
  }

  // Counts a dropped line in `counter`; the first few are logged with `why`.
  void drop(std::size_t CorpusStats::*counter, std::size_t number, const char* why) {
    ++(corpus_.stats.*counter);
    if (counter == &CorpusStats::too_long || counter == &CorpusStats::blank) return;
    if (logged_++ < kLoggedBadLines) {
      spdlog::debug("{}{}{}: {}, skipped", corpus_.source, lines_ ? ":" : ": entry ", number, why);
    }
  }

  // Both texts must already be known to be valid UTF-8; `src` in the language of
  // CorpusOptions::src_lang (before the sides are reversed).
  void add(std::string_view src, std::string_view tgt, std::size_t number) {
    // Scratch vectors keep their capacity from line to line; a kept pair gets vectors of
    // exactly its size (most words fit in std::string's small-string buffer).
    english_.clear();
    spanish_.clear();
    normalize_words(src, src_rules_, english_);
    normalize_words(tgt, tgt_rules_, spanish_);
    if (reverse_) english_.swap(spanish_);
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
  Language src_rules_, tgt_rules_;
  bool reverse_;
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
  // No limit (lm_train reading one side of a TSV): no "too long" count to give.
  const std::string long_ones =
      max_words == std::numeric_limits<int>::max()
          ? ""
          : std::to_string(too_long) + " too long (> " + std::to_string(max_words) + " words), ";
  return std::to_string(lines_read) + " lines read, " + std::to_string(pairs_kept) +
         " pairs kept; dropped: " + long_ones + std::to_string(empty) + " empty, " + std::to_string(malformed) +
         " malformed, " + std::to_string(invalid_utf8) + " invalid UTF-8, " + std::to_string(blank) + " blank";
}

Corpus parse_tsv_corpus(const std::string& text, const std::string& name, const CorpusOptions& options) {
  Corpus corpus;
  corpus.source = name;
  corpus.format = CorpusFormat::kTsv;
  PairCollector collector(corpus, options, /*lines=*/true);
  std::string_view rest(text);
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // byte-order mark
  if (rest.empty()) throw std::runtime_error(name + ": empty corpus file");

  if (options.src_column < 1 || options.tgt_column < 1 || options.src_column == options.tgt_column) {
    throw std::invalid_argument(name + ": the source and target columns must be two different columns from 1, got " +
                                std::to_string(options.src_column) + " and " + std::to_string(options.tgt_column));
  }
  // Fields a line needs: the higher column (and it may have one more, an attribution).
  const auto highest = static_cast<std::size_t>(std::max(options.src_column, options.tgt_column));
  std::vector<std::string_view> fields;
  const std::string no_tab =
      "no tab (expected " +
      (highest == 2 ? language_name(options.src_column == 1 ? options.src_lang : options.tgt_lang) + "<TAB>" +
                          language_name(options.src_column == 1 ? options.tgt_lang : options.src_lang)
                    : std::to_string(highest) + " tab-separated fields") +
      ")";
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
    fields.clear();
    for (std::size_t start = 0;;) {
      const std::size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields.size() < highest) {
      collector.drop(&CorpusStats::malformed, number,
                     fields.size() == 1 ? no_tab.c_str() : "too few tab-separated fields");
      continue;
    }
    if (fields.size() > highest + 1) {
      collector.drop(&CorpusStats::malformed, number, "more tab-separated fields than the columns and an attribution");
      continue;
    }
    collector.add(fields[static_cast<std::size_t>(options.src_column) - 1],
                  fields[static_cast<std::size_t>(options.tgt_column) - 1], number);
  }
  collector.finish();
  return corpus;
}

namespace {

// The lines of one parallel file: byte-order mark, '\r' line ends and the final line end
// dropped.
std::vector<std::string_view> parallel_lines(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

Corpus parse_parallel_corpus(const std::string& src_text, const std::string& tgt_text, const std::string& src_name,
                             const std::string& tgt_name, const CorpusOptions& options) {
  Corpus corpus;
  corpus.source = src_name + " + " + tgt_name;
  corpus.format = CorpusFormat::kParallelFiles;
  PairCollector collector(corpus, options, /*lines=*/true);
  const auto src = parallel_lines(src_text), tgt = parallel_lines(tgt_text);
  if (src.empty()) throw std::runtime_error(src_name + ": empty corpus file");
  if (tgt.empty()) throw std::runtime_error(tgt_name + ": empty corpus file");
  if (src.size() != tgt.size()) {
    const bool src_longer = src.size() > tgt.size();
    throw std::runtime_error((src_longer ? src_name : tgt_name) + ":" +
                             std::to_string(std::min(src.size(), tgt.size()) + 1) + ": no partner line: " + src_name +
                             " has " + std::to_string(src.size()) + " lines, " + tgt_name + " has " +
                             std::to_string(tgt.size()));
  }
  const auto where = [](const std::string& name, std::size_t number) { return name + ":" + std::to_string(number); };
  corpus.pairs.reserve(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const std::size_t number = i + 1;
    ++corpus.stats.lines_read;
    for (const auto& [line, name] : {std::pair{src[i], &src_name}, std::pair{tgt[i], &tgt_name}}) {
      if (!util::is_valid_utf8(line)) throw std::runtime_error(where(*name, number) + ": invalid UTF-8");
      if (is_blank(line)) {
        throw std::runtime_error(where(*name, number) + ": an empty side (a blank line; its partner is " +
                                 where(name == &src_name ? tgt_name : src_name, number) + ")");
      }
    }
    collector.add(src[i], tgt[i], number);
  }
  collector.finish();
  return corpus;
}

Corpus read_parallel_corpus(const std::string& src_path, const std::string& tgt_path, const CorpusOptions& options) {
  const auto text = [](const std::string& path) {
    std::string bytes = util::read_file(path);
    if (bytes.empty()) throw std::runtime_error(path + ": empty corpus file");
    return util::is_gzip(bytes) ? util::gunzip(bytes, path) : bytes;
  };
  return parse_parallel_corpus(text(src_path), text(tgt_path), src_path, tgt_path, options);
}

Corpus parse_archive_corpus(const std::string& pickle_bytes, const std::string& name, const CorpusOptions& options) {
  if (options.src_column != 1 || options.tgt_column != 2) {  // would be ignored: an entry is a pair, not columns
    throw std::runtime_error(name +
                             ": a DLStudio archive, whose entries are (English, Spanish) pairs: --src-column and "
                             "--tgt-column are a TSV's (--reverse translates the other way)");
  }
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
