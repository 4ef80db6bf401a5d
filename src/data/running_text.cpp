#include "dls/data/running_text.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/data/sentence_corpus.h"
#include "dls/util/digest.h"
#include "dls/util/file_io.h"
#include "dls/util/utf8.h"

namespace dls::data {

namespace {

const std::string kLineEndWord = Vocabulary::kSpecialWords[Vocabulary::kEos];
const std::string kLineEndCharacter = "\n";

bool is_blank(const std::string& character) { return character == " " || character == "\t" || character == "\n"; }

// SentencePiece marks a piece that starts a word with U+2581 ("▁").
bool starts_word_piece(const std::string& piece) { return piece.rfind("\xE2\x96\x81", 0) == 0; }

// Calls fn(token, counts) for every token of lines [begin, end) as `tokenizer` cuts them, each
// line closed by "\n" (characters) or "EOS" (words, pieces); counts: the token starts a word
// or is a line break (what perplexity per word divides by). One token at a time, so that a
// long text is never held as strings.
template <typename Fn>
void for_each_token(const RunningText& text, std::size_t begin, std::size_t end, const LmTokenizer& tokenizer,
                    Language language, Fn&& fn) {
  for (std::size_t i = begin; i < end; ++i) {
    if (tokenizer.characters) {
      bool after_blank = true;  // a line starts a word
      for (const auto& character : characters_of(text.lines[i])) {
        const bool blank = is_blank(character);
        fn(character, !blank && after_blank);
        after_blank = blank;
      }
      fn(kLineEndCharacter, true);
    } else {
      for (const auto& token : tokenizer.tokens(normalize_words(text.lines[i], language)))
        fn(token, !tokenizer.subwords || starts_word_piece(token));
      fn(kLineEndWord, true);
    }
  }
}

struct EncodedText {
  std::vector<std::int64_t> ids;
  std::vector<std::uint8_t> word_marks;  // 1 where a word or a line break is counted
};

EncodedText encode_lines(const RunningText& text, std::size_t begin, std::size_t end, const LmTokenizer& tokenizer,
                         Language language, const Vocabulary& vocabulary) {
  EncodedText encoded;
  for_each_token(text, begin, end, tokenizer, language, [&](const std::string& token, bool counts) {
    encoded.ids.push_back(vocabulary.index_of(token));
    encoded.word_marks.push_back(counts ? 1 : 0);
  });
  return encoded;
}

// How often each of the training lines' characters or words occurs (a vocabulary's words).
std::unordered_map<std::string, std::int64_t> token_counts(const RunningText& text, std::size_t end,
                                                           const LmTokenizer& tokenizer, Language language) {
  std::unordered_map<std::string, std::int64_t> counts;
  for_each_token(text, 0, end, tokenizer, language, [&](const std::string& token, bool) {
    if (token != kLineEndWord) ++counts[token];
  });
  return counts;
}

// The normalised words of lines [begin, end), one entry per line.
std::vector<std::vector<std::string>> line_words(const RunningText& text, std::size_t begin, std::size_t end,
                                                 Language language) {
  std::vector<std::vector<std::string>> words;
  words.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) words.push_back(normalize_words(text.lines[i], language));
  return words;
}

// The held-out lines: the fewest last lines holding at least `fraction` of the characters.
std::size_t held_out_lines(const RunningText& text, double fraction) {
  if (fraction <= 0) return 0;
  const double wanted = fraction * static_cast<double>(text.characters);
  double held = 0;
  std::size_t lines = 0;
  while (lines + 1 < text.lines.size() && held < wanted) {
    held += static_cast<double>(text.line_characters[text.lines.size() - 1 - lines]);
    ++lines;
  }
  return lines;
}

std::string thousands(std::size_t n) {
  auto digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

// Field `index` of a tab-separated line ("" when it has fewer).
std::string tab_separated_field(const std::string& line, std::size_t index) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < index; ++i) {
    start = line.find('\t', start);
    if (start == std::string::npos) return "";
    ++start;
  }
  return line.substr(start, line.find('\t', start) - start);
}

}  // namespace

RunningText read_running_text(const std::string& path, Language side) {
  const auto bytes = util::read_maybe_gzip_file(path);
  RunningText text;
  text.source = path;
  // A translation corpus's side (English<TAB>Spanish<TAB>attribution): one column, not every
  // column in one stream with the attribution between.
  const bool tsv = mostly_tab_separated(bytes);
  const std::size_t column = side == Language::kSpanish ? 1 : 0;
  if (tsv) text.tsv_side = side_name(side);
  // FNV-1a from an offset basis that lost its last digit in the first version; kept, since
  // saved runs' splits hold fingerprints made from it.
  std::uint64_t hash = 1469598103934665603ULL;
  std::size_t start = 0;
  bool any_word = false;
  while (start < bytes.size()) {
    auto end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    std::string line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (tsv) line = tab_separated_field(line, column);
    if (!util::is_valid_utf8(line)) {
      throw std::runtime_error(path + ": line " + std::to_string(text.lines.size() + 1) + " is not valid UTF-8");
    }
    hash = util::digest(util::digest(hash, line), "\n");
    any_word = any_word || line.find_first_not_of(" \t") != std::string::npos;
    text.line_characters.push_back(characters_of(line).size() + 1);
    text.characters += text.line_characters.back();
    text.lines.push_back(std::move(line));
    start = end + 1;
  }
  if (!any_word) throw std::runtime_error(path + ": no text (empty, or blank lines only)");
  text.fingerprint = hash;
  return text;
}

std::int64_t training_windows(std::size_t tokens, int block_size) {
  const auto block = static_cast<std::int64_t>(block_size);
  const auto n = static_cast<std::int64_t>(tokens);
  return n > block ? (n - block) / block : 0;
}

LmRows text_windows(const std::vector<std::int64_t>& stream, const std::vector<std::uint8_t>& word_marks,
                    int block_size, std::int64_t offset, std::int64_t count) {
  const std::int64_t width = block_size + 1;
  TORCH_CHECK(
      count == 0 || (offset >= 0 && offset + count * block_size + 1 <= static_cast<std::int64_t>(stream.size())),
      "windows past the end of the text");
  LmRows rows;
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count * width));
  for (std::int64_t w = 0; w < count; ++w) {
    const auto first = static_cast<std::size_t>(offset + w * block_size);
    std::copy_n(stream.begin() + static_cast<std::ptrdiff_t>(first), width,
                ids.begin() + static_cast<std::ptrdiff_t>(w * width));
    std::int64_t words = 0;
    for (std::size_t p = first + 1; p < first + static_cast<std::size_t>(width); ++p) {
      words += word_marks[p];
      rows.unknown += stream[p] == Vocabulary::kUnk ? 1 : 0;
    }
    rows.row_words.push_back(words);
  }
  rows.tokens = count * block_size;
  rows.rows = torch::tensor(ids, torch::kInt64).view({count, width});
  return rows;
}

std::int64_t window_offset(std::uint64_t seed, std::int64_t epoch, int block_size) {
  // splitmix64 of the seed and the epoch: fixed by its arithmetic, the same everywhere.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(epoch + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<std::int64_t>(z % static_cast<std::uint64_t>(block_size));
}

LmDataset prepare_running_text(const LmDataSettings& settings, const LmStoredData* stored,
                               const InheritedLmVocabulary* inherited) {
  const auto language = parse_side(settings.side);
  const auto text = read_running_text(settings.path, language);
  const int block = settings.block_size;
  SplitDefinition split;
  if (stored != nullptr) {
    split = stored->split;
    if (split.corpus_pairs != text.lines.size() || split.corpus_fingerprint != text.fingerprint) {
      throw std::runtime_error(text.source + ": not the text the run trained on (it had " +
                               std::to_string(split.corpus_pairs) + " lines, this file has " +
                               std::to_string(text.lines.size()) +
                               (split.corpus_pairs == text.lines.size() ? ", with other contents)" : ")"));
    }
  } else {
    split.seed = settings.split_seed;
    split.validation_pairs = held_out_lines(text, settings.validation_fraction);
    // The validation text is the last lines: a text on one line has none to hold out (the run
    // trained without validation, perplexity nan), and one whose last line holds most of the
    // text (a few title lines, then the text on one line) trained on the titles alone.
    double held = 0;
    for (std::size_t i = 0; i < split.validation_pairs; ++i)
      held += static_cast<double>(text.line_characters[text.lines.size() - 1 - i]);
    const double share = text.characters > 0 ? held / static_cast<double>(text.characters) : 0;
    if (settings.validation_fraction > 0 && (split.validation_pairs == 0 || share > 0.5)) {
      throw std::runtime_error(fmt::format(
          "{}: the validation text is the last lines holding --validation-fraction {} of the text, and {}; break the "
          "text into lines (paragraphs), or give --validation-fraction 0 to train without validation",
          text.source, settings.validation_fraction,
          split.validation_pairs == 0
              ? std::string("the text is one line: none can be held out")
              : fmt::format("its last {} line(s) hold {:.0f}% of it", split.validation_pairs, 100 * share)));
    }
    split.corpus_pairs = text.lines.size();
    split.corpus_fingerprint = text.fingerprint;
  }
  const std::size_t training_lines = text.lines.size() - split.validation_pairs;

  auto [tokenizer, vocabulary] =
      stored != nullptr
          ? std::pair{stored->tokenizer, stored->vocabulary}
          : fresh_lm_vocabulary(
                settings, inherited,
                [&] { return SubwordModel::train(line_words(text, 0, training_lines, language), settings.subwords); },
                [&](const LmTokenizer& t) {
                  return Vocabulary::from_counts(token_counts(text, training_lines, t, language),
                                                 settings.vocabulary_limits());
                });
  const int max_len = block + 1;
  if (stored != nullptr && stored->max_len != max_len) {
    throw std::runtime_error("the run's windows are " + std::to_string(stored->max_len) + " tokens, --block-size " +
                             std::to_string(block) + " asks " + std::to_string(max_len));
  }
  auto training = encode_lines(text, 0, training_lines, tokenizer, language, vocabulary);
  const auto held_out = encode_lines(text, training_lines, text.lines.size(), tokenizer, language, vocabulary);
  auto& train_ids = training.ids;
  const auto& validation_ids = held_out.ids;
  const auto windows = training_windows(train_ids.size(), block);
  if (windows < 1) {
    throw std::runtime_error(fmt::format("{}: the training text is {} {}, too short for windows of --block-size {}",
                                         text.source, train_ids.size(), tokenizer.unit(), block));
  }
  const auto validation_windows =
      validation_ids.empty() ? 0 : (static_cast<std::int64_t>(validation_ids.size()) - 1) / block;
  if (split.validation_pairs > 0 && validation_windows < 1) {
    throw std::runtime_error(fmt::format(
        "{}: the held-out text is {} {}, less than one window of --block-size {} (raise --validation-fraction)",
        text.source, validation_ids.size(), tokenizer.unit(), block));
  }
  CorpusSplit corpus_split;
  corpus_split.definition = split;
  SentenceCorpus corpus;
  corpus.source = text.source;
  corpus.format = "running text";
  corpus.lines_read = text.lines.size();
  auto train = text_windows(train_ids, training.word_marks, block, 0, windows);
  auto validation = text_windows(validation_ids, held_out.word_marks, block, 0, validation_windows);
  auto summary =
      fmt::format("{}: running text{}, {} lines, {} characters; the last {} lines held out", text.source,
                  text.tsv_side.empty() ? "" : " (the " + text.tsv_side + " column of a TSV)",
                  thousands(text.lines.size()), thousands(text.characters), thousands(split.validation_pairs));
  auto inherited_summary = inherited_lm_summary(stored != nullptr ? nullptr : inherited, vocabulary, tokenizer);
  return LmDataset{
      std::move(corpus),  std::move(corpus_split),     std::move(tokenizer), std::move(vocabulary),          max_len,
      std::move(train),   std::move(validation),       std::move(train_ids), std::move(training.word_marks), block,
      std::move(summary), std::move(inherited_summary)};
}

LmRows running_text_rows(const std::string& path, const LmTokenizer& tokenizer, const Vocabulary& vocabulary,
                         Language language, int block_size) {
  const auto text = read_running_text(path, language);
  const auto encoded = encode_lines(text, 0, text.lines.size(), tokenizer, language, vocabulary);
  const auto count = (static_cast<std::int64_t>(encoded.ids.size()) - 1) / block_size;
  return text_windows(encoded.ids, encoded.word_marks, block_size, 0, std::max<std::int64_t>(0, count));
}

}  // namespace dls::data
