#include "dls/data/seq2seq_dataset.h"

#include <limits>
#include <stdexcept>
#include <unordered_set>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"

namespace dls::data {

namespace {

// The index (into pairs) of the longest sentence on one side, the first of equals.
template <typename Side>
std::size_t longest(const std::vector<SentencePair>& pairs, Side side) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < pairs.size(); ++i) {
    if (side(pairs[i]).size() > side(pairs[best]).size()) best = i;
  }
  return best;
}

// One side of the training split's pairs.
template <typename Side>
std::vector<std::vector<std::string>> training_sentences(const Corpus& corpus, const CorpusSplit& split, Side side) {
  std::vector<std::vector<std::string>> sentences;
  sentences.reserve(split.training.size());
  for (const auto i : split.training) sentences.push_back(side(corpus.pairs[i]));
  return sentences;
}

const std::vector<std::string>& english_of(const SentencePair& p) { return p.english; }
const std::vector<std::string>& spanish_of(const SentencePair& p) { return p.spanish; }

// A fresh run's SentencePiece models (English, Spanish), trained on the training split
// only: one on both sides' sentences (joint), or one per side.
std::pair<SubwordModel, SubwordModel> train_subword_models(const Corpus& corpus, const CorpusSplit& split,
                                                           const SubwordOptions& options) {
  auto english = training_sentences(corpus, split, english_of);
  auto spanish = training_sentences(corpus, split, spanish_of);
  if (!options.joint) return {SubwordModel::train(english, options), SubwordModel::train(spanish, options)};
  english.insert(english.end(), spanish.begin(), spanish.end());
  auto joint = SubwordModel::train(english, options);
  return {joint, joint};
}

// The fraction of the real tokens (not SOS, EOS or padding) of ids [N, L] that are <unk>.
double unknown_rate(const torch::Tensor& ids) {
  const auto unknown = (ids == Vocabulary::kUnk).sum().item<double>();
  const auto real = (ids >= Vocabulary::kUnk).sum().item<double>();  // specials 0-2 come first
  return real > 0 ? unknown / real : 0.0;
}

// The training pairs (and, with validation files, the validation pairs after them) and their split.
std::pair<Corpus, CorpusSplit> read_and_split(const Seq2SeqDataSettings& settings, const Seq2SeqStoredData* stored,
                                              std::string& validation_summary) {
  const auto options = settings.corpus_options();
  auto corpus = settings.train_src.empty() ? read_corpus(settings.data_path, options)
                                           : read_parallel_corpus(settings.train_src, settings.train_tgt, options);
  if (settings.valid_src.empty()) {
    const auto held_out = validation_size(corpus.pairs.size(), settings.validation_fraction,
                                          static_cast<std::size_t>(settings.validation_pairs));
    auto split = stored != nullptr ? apply_split_definition(stored->split, corpus.pairs, corpus.source)
                                   : split_by_english(corpus.pairs, settings.split_seed, held_out);
    return {std::move(corpus), std::move(split)};
  }
  auto valid = read_parallel_corpus(settings.valid_src, settings.valid_tgt, options);
  validation_summary = valid.source + ": " + valid.stats.summary(settings.max_words);
  const auto training = corpus.pairs.size();
  corpus.pairs.insert(corpus.pairs.end(), std::make_move_iterator(valid.pairs.begin()),
                      std::make_move_iterator(valid.pairs.end()));
  if (stored != nullptr) verify_split_definition(stored->split, corpus.pairs, corpus.source + " + " + valid.source);
  auto split = split_given(corpus.pairs, training, settings.split_seed);
  return {std::move(corpus), std::move(split)};
}

// "English: the parent's 5210 words + 37 new", "English: the parent's 8000 pieces", "German:
// this data's own (...)".
std::string inherited_side(const std::string& language, const std::optional<Vocabulary>& parent, const Vocabulary& ours,
                           bool subwords) {
  if (!parent) return language + ": this data's own (the parent's is another language's)";
  if (subwords) return fmt::format("{}: the parent's {} pieces", language, parent->size());
  return fmt::format("{}: the parent's {} words + {} new", language, parent->size(), ours.size() - parent->size());
}

// "--min-count 2: English keeps 7178 of the training split's 10805 words, Spanish 11809 of
// 20710; <unk> in the training split: English 0.76 %, Spanish 2.06 % of the words".
std::string limits_summary(const Seq2SeqDataset& d, const Seq2SeqDataSettings& settings) {
  const auto distinct = [&](const std::vector<std::string>& (*side)(const SentencePair&)) {
    std::unordered_set<std::string> words;
    for (const auto i : d.split.training) words.insert(side(d.corpus.pairs[i]).begin(), side(d.corpus.pairs[i]).end());
    return words.size();
  };
  const auto kept = [](const Vocabulary& v) { return v.size() - Vocabulary::kSpecialCount; };
  const auto src = language_name(d.corpus.source_language), tgt = language_name(d.corpus.target_language);
  return fmt::format(
      "{}: {} keeps {} of the training split's {} words, {} {} of {}; <unk> in the training split: {} {:.2f} %, {} "
      "{:.2f} % of the words",
      settings.vocabulary_limits().flags(), src, kept(d.english), distinct(english_of), tgt, kept(d.spanish),
      distinct(spanish_of), src, 100 * unknown_rate(d.train.src), tgt, 100 * unknown_rate(d.train.tgt));
}

}  // namespace

CorpusOptions Seq2SeqDataSettings::corpus_options() const {
  CorpusOptions options;
  options.max_words = max_words;
  options.src_column = src_column;
  options.tgt_column = tgt_column;
  options.src_lang = src_lang;
  options.tgt_lang = tgt_lang;
  options.reverse = reverse;
  return options;
}

std::string Seq2SeqDataSettings::corpus_name() const {
  return train_src.empty() ? data_path : train_src + " + " + train_tgt;
}

Seq2SeqDataset prepare_seq2seq_dataset(const Seq2SeqDataSettings& settings, Vocabulary::Padding padding,
                                       const Seq2SeqStoredData* stored, const InheritedVocabularies* inherited) {
  if (stored != nullptr) inherited = nullptr;  // a resumed run's vocabularies are its own
  std::string validation_summary;
  auto read = read_and_split(settings, stored, validation_summary);
  auto& corpus = read.first;  // references, not a structured binding: the lambda below captures them
  auto& split = read.second;
  // Read before the SentencePiece training, so that a bad test file fails in seconds; every
  // pair, however long, as sacreBLEU scores every line (the end of training translates a
  // longer source whole or in parts: eval/pair_translation.h).
  Corpus test;
  if (!settings.test_src.empty()) {
    auto options = settings.corpus_options();
    options.max_words = std::numeric_limits<int>::max();
    test = read_parallel_corpus(settings.test_src, settings.test_tgt, options);
  }
  std::optional<SubwordModel> english_subwords, spanish_subwords;
  if (settings.subword_units && stored != nullptr) {
    if (!stored->english_subwords || !stored->spanish_subwords) {
      throw std::runtime_error(settings.data_path + ": subword units, but no stored SentencePiece models");
    }
    english_subwords = stored->english_subwords;
    spanish_subwords = stored->spanish_subwords;
  } else if (settings.subword_units && inherited != nullptr && inherited->english_subwords) {
    english_subwords = inherited->english_subwords;
    spanish_subwords = inherited->spanish_subwords;
  } else if (settings.subword_units) {
    auto models = train_subword_models(corpus, split, settings.subwords);
    english_subwords = std::move(models.first);
    spanish_subwords = std::move(models.second);
  }
  // The vocabularies: the checkpoint's, the models' pieces, the parent's (extended by the
  // training split's words), or the training split's words.
  const auto vocabulary = [&](const Vocabulary* resumed, const std::optional<SubwordModel>& model,
                              const std::optional<Vocabulary>& parent,
                              const std::vector<std::string>& (*side)(const SentencePair&)) {
    if (resumed != nullptr) return *resumed;
    if (model) return Vocabulary::from_words(model->pieces());
    if (parent && !inherited->extend) return *parent;
    if (parent)
      return Vocabulary::extended(
          *parent, Vocabulary::build(training_sentences(corpus, split, side), settings.vocabulary_limits()));
    return Vocabulary::build(training_sentences(corpus, split, side), settings.vocabulary_limits());
  };
  const std::optional<Vocabulary> none;
  auto english = vocabulary(stored ? &stored->english : nullptr, english_subwords,
                            inherited ? inherited->english : none, english_of);
  auto spanish = vocabulary(stored ? &stored->spanish : nullptr, spanish_subwords,
                            inherited ? inherited->spanish : none, spanish_of);
  std::string inherited_summary;
  if (inherited != nullptr && (inherited->english || inherited->spanish)) {
    const bool pieces = english_subwords.has_value();
    inherited_summary = "vocabulary from " + inherited->source + ": " +
                        inherited_side(language_name(corpus.source_language), inherited->english, english, pieces) +
                        ", " +
                        inherited_side(language_name(corpus.target_language), inherited->spanish, spanish, pieces) +
                        (pieces ? " (its SentencePiece models)" : "");
  }
  Seq2SeqDataset d{std::move(corpus),
                   std::move(split),
                   std::move(english),
                   std::move(spanish),
                   std::move(english_subwords),
                   std::move(spanish_subwords),
                   0,
                   {},
                   {},
                   std::move(validation_summary),
                   std::move(test),
                   std::move(inherited_summary),
                   {}};
  // The tensors index the pieces with subword units (a copy of the corpus while encoding).
  const auto pieces = settings.subword_units
                          ? tokenize_pairs(d.corpus.pairs, &*d.english_subwords, &*d.spanish_subwords)
                          : std::vector<SentencePair>{};
  const auto& tokens = settings.subword_units ? pieces : d.corpus.pairs;
  d.max_len = settings.subword_units ? static_cast<int>(longest_side(tokens)) + 2 : settings.max_words + 2;
  check_token_rows_fit(d.split.training.size() + d.split.validation.size(), d.max_len);
  d.train = encode_pairs(tokens, d.split.training, d.english, d.spanish, d.max_len, padding);
  if (!d.split.validation.empty()) {
    d.validation = encode_pairs(tokens, d.split.validation, d.english, d.spanish, d.max_len, padding);
  }
  if (!settings.subword_units && settings.vocabulary_limits().any()) d.limits_summary = limits_summary(d, settings);
  return d;
}

std::vector<std::string> describe_seq2seq_dataset(const Seq2SeqDataset& d, int max_words) {
  const auto src = language_name(d.corpus.source_language), tgt = language_name(d.corpus.target_language);
  std::vector<std::string> lines;
  lines.push_back(d.corpus.source + ": " + d.corpus.stats.summary(max_words));
  if (!d.validation_summary.empty()) {
    lines.push_back(d.validation_summary);
    lines.push_back(fmt::format("pairs: {} training, {} validation (the validation files)", d.split.training.size(),
                                d.split.validation.size()));
  } else {
    lines.push_back(fmt::format("pairs: {} training, {} validation (split seed {}, by {} sentence)",
                                d.split.training.size(), d.split.validation.size(), d.split.definition.seed, src));
  }
  if (!d.test.pairs.empty()) {
    lines.push_back(fmt::format("{}: {}; scored at the end of training", d.test.source,
                                d.test.stats.summary(std::numeric_limits<int>::max())));
  }
  const auto unit = d.english_subwords ? "pieces" : "words";
  if (!d.inherited_summary.empty()) lines.push_back(d.inherited_summary);
  lines.push_back(fmt::format(
      "vocabulary ({}with SOS EOS <pad> <unk>): {} {} {}, "
      "{} {} {}{}",
      d.inherited_summary.empty() ? "training split, " : "", src, d.english.size(), unit, tgt, d.spanish.size(), unit,
      !d.english_subwords ? ""
      : d.english_subwords->serialized_proto() == d.spanish_subwords->serialized_proto()
          ? " (one joint SentencePiece model)"
          : " (SentencePiece models)"));
  if (!d.limits_summary.empty()) lines.push_back(d.limits_summary);
  if (d.validation.size() > 0) {
    lines.push_back(fmt::format("validation <unk> rate (of the {}): {} {:.3f} %, {} {:.3f} %", unit, src,
                                100 * unknown_rate(d.validation.src), tgt, 100 * unknown_rate(d.validation.tgt)));
  }
  if (d.english_subwords) {
    lines.push_back(fmt::format("L = {} (the longest side of a pair in pieces, + 2)", d.max_len));
  } else {  // DLStudio's own start-up line
    lines.push_back(fmt::format("No sentence is longer than {} words (including the SOS and EOS tokens)", d.max_len));
  }
  const auto& pairs = d.corpus.pairs;
  const auto en = longest(
      pairs, [](const SentencePair& p) -> const auto& { return p.english; });
  const auto es = longest(
      pairs, [](const SentencePair& p) -> const auto& { return p.spanish; });
  lines.push_back(
      fmt::format("longest {} sentence ({} words): {}", src, pairs[en].english.size(), join_words(pairs[en].english)));
  lines.push_back(
      fmt::format("longest {} sentence ({} words): {}", tgt, pairs[es].spanish.size(), join_words(pairs[es].spanish)));
  return lines;
}

std::vector<std::string> seq2seq_dataset_warnings(const Seq2SeqDataset& d) {
  std::vector<std::string> warnings;
  const std::string no_spaces =
      "a language written without spaces (Chinese, Japanese, Thai) needs its code (--src-lang/--tgt-lang: zh, ja, "
      "th) and --tokenizer sentencepiece";
  for (const bool source : {true, false}) {
    const auto name = language_name(source ? d.corpus.source_language : d.corpus.target_language);
    if (!d.english_subwords && !d.split.training.empty()) {
      std::size_t one_word = 0;
      for (const auto i : d.split.training) {
        const auto& pair = d.corpus.pairs[i];
        one_word += (source ? pair.english : pair.spanish).size() == 1 ? 1 : 0;
      }
      const double share = static_cast<double>(one_word) / static_cast<double>(d.split.training.size());
      if (share >= 0.5) {
        warnings.push_back(
            fmt::format("{}: {:.0f} % of the training sentences are one word; {}", name, 100 * share, no_spaces));
      }
    }
    if (d.validation.size() > 0) {
      const double unknown = unknown_rate(source ? d.validation.src : d.validation.tgt);
      if (unknown >= 0.5) {
        warnings.push_back(fmt::format(
            "{}: {:.1f} % of the validation {} are <unk>, never seen in training: validation data unlike the "
            "training data, or {}",
            name, 100 * unknown, d.english_subwords ? "pieces" : "words", no_spaces));
      }
    }
  }
  return warnings;
}

namespace {

// One side of pairs[indices].
std::vector<std::vector<std::string>> side_sentences(const Seq2SeqDataset& d, const std::vector<std::size_t>& indices,
                                                     const std::vector<std::string>& (*side)(const SentencePair&)) {
  std::vector<std::vector<std::string>> out;
  out.reserve(indices.size());
  for (const auto i : indices) out.push_back(side(d.corpus.pairs[i]));
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> english_sentences(const Seq2SeqDataset& d,
                                                        const std::vector<std::size_t>& indices) {
  return side_sentences(d, indices, english_of);
}

std::vector<std::vector<std::string>> spanish_sentences(const Seq2SeqDataset& d,
                                                        const std::vector<std::size_t>& indices) {
  return side_sentences(d, indices, spanish_of);
}

}  // namespace dls::data
