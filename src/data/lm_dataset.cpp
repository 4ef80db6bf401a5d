#include "dls/data/lm_dataset.h"

#include <algorithm>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/data/pair_tensors.h"  // check_token_rows_fit
#include "dls/data/running_text.h"
#include "dls/util/utf8.h"

namespace dls::data {

std::vector<std::string> characters_of(std::string_view text) {
  std::vector<std::string> characters;
  for (const auto code_point : util::nfc_code_points(text)) characters.push_back(util::encode_utf8(code_point));
  return characters;
}

std::vector<std::string> LmTokenizer::tokens(const std::vector<std::string>& words) const {
  if (characters) return characters_of(join_words(words));
  return subwords ? subwords->encode(words) : words;
}

std::vector<std::string> LmTokenizer::words(const std::vector<std::string>& tokens) const {
  if (characters) {
    std::string text;
    for (const auto& t : tokens) text += t;
    std::vector<std::string> words;
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto end = std::min(text.find(' ', start), text.size());
      if (end > start) words.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return words;
  }
  return subwords ? subwords->decode(tokens) : tokens;
}

LmRows encode_sentences(const std::vector<std::vector<std::string>>& sentences, const std::vector<std::size_t>& indices,
                        const LmTokenizer& tokenizer, const Vocabulary& vocabulary, int max_len) {
  LmRows encoded;
  std::vector<std::int64_t> ids;
  ids.reserve(indices.size() * static_cast<std::size_t>(max_len));
  std::vector<std::string> unknown;
  std::int64_t kept = 0;
  for (const auto i : indices) {
    const auto tokens = tokenizer.tokens(sentences[i]);
    if (static_cast<int>(tokens.size()) + 2 > max_len) {
      ++encoded.too_long;
      continue;
    }
    const auto row = vocabulary.encode(tokens, max_len, Vocabulary::Padding::kPad, &unknown);
    ids.insert(ids.end(), row.begin(), row.end());
    encoded.row_words.push_back(static_cast<std::int64_t>(sentences[i].size()) + 1);
    encoded.tokens += static_cast<std::int64_t>(tokens.size());
    ++kept;
  }
  encoded.unknown = static_cast<std::int64_t>(unknown.size());
  encoded.rows = torch::tensor(ids, torch::kInt64).view({kept, max_len});
  return encoded;
}

std::int64_t LmRows::words() const {
  std::int64_t total = 0;
  for (const auto w : row_words) total += w;
  return total;
}

void LmRows::keep_first(std::int64_t n) {
  if (n >= rows.size(0)) return;
  rows = rows.narrow(0, 0, n);
  row_words.resize(static_cast<std::size_t>(n));
}

namespace {

std::vector<std::vector<std::string>> training_sentences(const SentenceCorpus& corpus, const CorpusSplit& split) {
  std::vector<std::vector<std::string>> training;
  training.reserve(split.training.size());
  for (const auto i : split.training) training.push_back(corpus.sentences[i]);
  return training;
}

// The longest sentence of the corpus in tokens, + 2: every kept sentence fits, whichever split it is in.
int longest_row(const SentenceCorpus& corpus, const LmTokenizer& tokenizer) {
  std::size_t longest = 0;
  for (const auto& sentence : corpus.sentences) longest = std::max(longest, tokenizer.tokens(sentence).size());
  return static_cast<int>(longest) + 2;
}

std::vector<std::vector<std::string>> character_sentences(const std::vector<std::vector<std::string>>& sentences) {
  std::vector<std::vector<std::string>> characters;
  characters.reserve(sentences.size());
  for (const auto& words : sentences) characters.push_back(characters_of(join_words(words)));
  return characters;
}

// --min-count/--max-vocab: "--min-count 2: the vocabulary keeps 5210 words; <unk> in the
// training split: 1.850 % of the words"; "" without them.
std::string limits_line(const LmDataset& d, const LmDataSettings& settings) {
  const auto limits = settings.vocabulary_limits();
  if (d.tokenizer.subwords || !limits.any()) return "";
  std::int64_t unknown = 0, tokens = 0;
  if (d.block_size > 0) {
    for (const auto id : d.train_stream) unknown += id == Vocabulary::kUnk ? 1 : 0;
    tokens = static_cast<std::int64_t>(d.train_stream.size());
  } else {
    unknown = d.train.unknown;
    tokens = d.train.tokens;
  }
  const auto where = d.block_size > 0 ? "text" : "split";
  return fmt::format("{}: the vocabulary keeps {} {}; <unk> in the training {}: {:.3f} % of the {}", limits.flags(),
                     d.vocabulary.size() - Vocabulary::kSpecialCount, d.tokenizer.unit(), where,
                     tokens > 0 ? 100.0 * static_cast<double>(unknown) / static_cast<double>(tokens) : 0.0,
                     d.tokenizer.unit());
}

}  // namespace

std::pair<LmTokenizer, Vocabulary> fresh_lm_vocabulary(const LmDataSettings& settings,
                                                       const InheritedLmVocabulary* inherited,
                                                       const std::function<SubwordModel()>& train_subwords,
                                                       const std::function<Vocabulary(const LmTokenizer&)>& own) {
  LmTokenizer tokenizer;
  if (settings.subword_units) {
    tokenizer.subwords = inherited != nullptr && inherited->subwords ? *inherited->subwords : train_subwords();
    auto pieces = Vocabulary::from_words(tokenizer.subwords->pieces());
    return {std::move(tokenizer), std::move(pieces)};
  }
  tokenizer.characters = settings.char_units;
  if (inherited == nullptr) return {tokenizer, own(tokenizer)};
  if (!inherited->extend) return {tokenizer, inherited->vocabulary};
  return {tokenizer, Vocabulary::extended(inherited->vocabulary, own(tokenizer))};
}

std::string inherited_lm_summary(const InheritedLmVocabulary* inherited, const Vocabulary& ours,
                                 const LmTokenizer& tokenizer) {
  if (inherited == nullptr) return "";
  const auto theirs = inherited->vocabulary.size();
  return fmt::format("vocabulary from {}: the parent's {} {}{}", inherited->source, theirs, tokenizer.unit(),
                     inherited->subwords ? std::string(" (its SentencePiece model)")
                     : inherited->extend ? fmt::format(" + {} new", ours.size() - theirs)
                                         : std::string(" (new ones read as <unk>)"));
}

LmDataset prepare_lm_dataset(const LmDataSettings& settings, const LmStoredData* stored,
                             const InheritedLmVocabulary* inherited) {
  if (stored != nullptr) inherited = nullptr;  // a resumed run's vocabulary is its own
  if (settings.block_size > 0) return prepare_running_text(settings, stored, inherited);
  auto corpus = read_sentence_corpus(settings.path, parse_side(settings.side), settings.max_words);
  // The split groups pairs by their English sentence: sentences stand in for it, so that
  // a sentence repeated in the corpus is never both trained on and validated.
  std::vector<SentencePair> as_pairs(corpus.sentences.size());
  for (std::size_t i = 0; i < as_pairs.size(); ++i) as_pairs[i].english = corpus.sentences[i];
  if (stored == nullptr && settings.validation_sentences > 0 &&
      static_cast<std::size_t>(settings.validation_sentences) >= as_pairs.size()) {
    throw std::invalid_argument(corpus.source + ": --validation-sentences " +
                                std::to_string(settings.validation_sentences) + " leaves no training sentence of its " +
                                std::to_string(as_pairs.size()));
  }
  auto split = stored != nullptr ? apply_split_definition(stored->split, as_pairs, corpus.source)
                                 : split_by_english(as_pairs, settings.split_seed, settings.validation_sentences);
  auto [tokenizer, vocabulary] =
      stored != nullptr
          ? std::pair{stored->tokenizer, stored->vocabulary}
          : fresh_lm_vocabulary(
                settings, inherited,
                [&] { return SubwordModel::train(training_sentences(corpus, split), settings.subwords); },
                [&](const LmTokenizer& t) {
                  return t.characters
                             ? Vocabulary::build(character_sentences(training_sentences(corpus, split)),
                                                 settings.vocabulary_limits())
                             : Vocabulary::build(training_sentences(corpus, split), settings.vocabulary_limits());
                });
  const int max_len = stored != nullptr                            ? stored->max_len
                      : tokenizer.subwords || tokenizer.characters ? longest_row(corpus, tokenizer)
                                                                   : settings.max_words + 2;
  check_token_rows_fit(split.training.size() + split.validation.size(), max_len);
  auto train = encode_sentences(corpus.sentences, split.training, tokenizer, vocabulary, max_len);
  auto validation = encode_sentences(corpus.sentences, split.validation, tokenizer, vocabulary, max_len);
  if (train.too_long + validation.too_long > 0) {
    throw std::runtime_error(corpus.source + ": " + std::to_string(train.too_long + validation.too_long) +
                             " sentences are longer than the model's " + std::to_string(max_len - 2) + " " +
                             tokenizer.unit() + " (another corpus than the run's?)");
  }
  auto inherited_summary = inherited_lm_summary(inherited, vocabulary, tokenizer);
  return LmDataset{std::move(corpus),
                   std::move(split),
                   std::move(tokenizer),
                   std::move(vocabulary),
                   max_len,
                   std::move(train),
                   std::move(validation),
                   {},
                   {},
                   0,
                   {},
                   std::move(inherited_summary)};
}

std::string lm_dataset_warning(const LmDataset& d) {
  std::string warning;
  const auto held = d.split.validation.size(), all = held + d.split.training.size();
  if (d.block_size == 0 && 4 * held > all) {  // the default 1,000 of a small corpus
    warning = fmt::format(
        "{} of the {} sentences ({:.0f} %) are held out for validation, left out of training: a corpus this small "
        "wants fewer (e.g. --validation-sentences {})",
        held, all, 100.0 * static_cast<double>(held) / static_cast<double>(all), std::max<std::size_t>(1, all / 10));
  }
  const double unknown = d.validation.unknown_rate();
  if (unknown < 0.5) return warning;
  return warning + (warning.empty() ? "" : "; ") +
         fmt::format(
             "{:.1f} % of the validation {} are <unk>, never seen in training: validation text unlike the "
             "training text, or a language written without spaces (Chinese, Japanese, Thai) read as words "
             "(--tokenizer sentencepiece or char)",
             100 * unknown, d.tokenizer.unit());
}

std::vector<std::string> describe_lm_dataset(const LmDataset& d, const LmDataSettings& settings) {
  if (d.block_size > 0) {
    std::vector<std::string> lines{d.text_summary};
    if (!d.inherited_summary.empty()) lines.push_back(d.inherited_summary);
    lines.insert(
        lines.end(),
        {fmt::format("windows of {} + 1 {}: {} training windows an epoch of the {} training {} (their offset drawn "
                     "anew each epoch), {} validation windows ({} {} predicted)",
                     d.block_size, d.tokenizer.unit(), d.train.rows.size(0), d.train_stream.size(), d.tokenizer.unit(),
                     d.validation.rows.size(0), d.validation.tokens, d.tokenizer.unit()),
         fmt::format("vocabulary ({}with SOS EOS <pad> <unk>): {} {}; L = {}",
                     d.inherited_summary.empty() ? "training text, " : "", d.vocabulary.size(), d.tokenizer.unit(),
                     d.max_len),
         fmt::format("validation <unk> rate: {:.3f} % ({} of {} {})", 100.0 * d.validation.unknown_rate(),
                     d.validation.unknown, d.validation.tokens, d.tokenizer.unit())});
    if (const auto limits = limits_line(d, settings); !limits.empty()) lines.push_back(limits);
    return lines;
  }
  std::vector<std::string> lines{
      d.corpus.source + ": " + d.corpus.summary(parse_side(settings.side), settings.max_words),
      fmt::format("sentences: {} training, {} validation (split seed {}; a repeated sentence stays on one side)",
                  d.split.training.size(), d.split.validation.size(), d.split.definition.seed)};
  // An inherited vocabulary is the parent's (its line says so), not the training split's.
  const bool inherited = !d.inherited_summary.empty();
  if (inherited) lines.push_back(d.inherited_summary);
  const std::string own = inherited ? "" : "training split, ";
  if (d.tokenizer.characters) {
    lines.push_back(
        fmt::format("vocabulary ({}with SOS EOS <pad> <unk>): {} characters; L = {} (the longest sentence: {} "
                    "characters)",
                    own, d.vocabulary.size(), d.max_len, d.max_len - 2));
  } else if (d.tokenizer.subwords) {
    lines.push_back(
        fmt::format("vocabulary: {} pieces of a SentencePiece {} model {} (SOS EOS <pad> <unk> included); L = {} (the "
                    "longest sentence: {} pieces)",
                    d.vocabulary.size(), to_string(settings.subwords.kind),
                    inherited ? "the parent trained" : "trained on the training split", d.max_len, d.max_len - 2));
  } else {
    lines.push_back(
        fmt::format("vocabulary ({}with SOS EOS <pad> <unk>): {} words; L = {}", own, d.vocabulary.size(), d.max_len));
  }
  lines.push_back(fmt::format("validation <unk> rate: {:.3f} % ({} of {} {})", 100.0 * d.validation.unknown_rate(),
                              d.validation.unknown, d.validation.tokens, d.tokenizer.unit()));
  if (const auto limits = limits_line(d, settings); !limits.empty()) lines.push_back(limits);
  return lines;
}

}  // namespace dls::data
