#include "dls/data/seq2seq_dataset.h"

#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

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

}  // namespace

Seq2SeqDataset prepare_seq2seq_dataset(const Seq2SeqDataSettings& settings, Vocabulary::Padding padding,
                                       const Seq2SeqStoredData* stored) {
  CorpusOptions corpus_options;
  corpus_options.max_words = settings.max_words;
  auto corpus = read_corpus(settings.data_path, corpus_options);
  auto split = stored != nullptr ? apply_split_definition(stored->split, corpus.pairs, corpus.source)
                                 : split_by_english(corpus.pairs, settings.split_seed,
                                                    static_cast<std::size_t>(settings.validation_pairs));
  std::optional<SubwordModel> english_subwords, spanish_subwords;
  if (settings.subword_units && stored != nullptr) {
    if (!stored->english_subwords || !stored->spanish_subwords) {
      throw std::runtime_error(settings.data_path + ": subword units, but no stored SentencePiece models");
    }
    english_subwords = stored->english_subwords;
    spanish_subwords = stored->spanish_subwords;
  } else if (settings.subword_units) {
    auto models = train_subword_models(corpus, split, settings.subwords);
    english_subwords = std::move(models.first);
    spanish_subwords = std::move(models.second);
  }
  // The vocabularies: the checkpoint's, the models' pieces, or the training split's words.
  const auto vocabulary = [&](const Vocabulary* resumed, const std::optional<SubwordModel>& model,
                              const std::vector<std::string>& (*side)(const SentencePair&)) {
    if (resumed != nullptr) return *resumed;
    if (model) return Vocabulary::from_words(model->pieces());
    return Vocabulary::build(training_sentences(corpus, split, side));
  };
  auto english = vocabulary(stored ? &stored->english : nullptr, english_subwords, english_of);
  auto spanish = vocabulary(stored ? &stored->spanish : nullptr, spanish_subwords, spanish_of);
  Seq2SeqDataset d{std::move(corpus),
                   std::move(split),
                   std::move(english),
                   std::move(spanish),
                   std::move(english_subwords),
                   std::move(spanish_subwords),
                   0,
                   {},
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
  return d;
}

std::vector<std::string> describe_seq2seq_dataset(const Seq2SeqDataset& d, int max_words) {
  std::vector<std::string> lines;
  lines.push_back(d.corpus.source + ": " + d.corpus.stats.summary(max_words));
  lines.push_back(fmt::format("pairs: {} training, {} validation (split seed {}, by English sentence)",
                              d.split.training.size(), d.split.validation.size(), d.split.definition.seed));
  const auto unit = d.english_subwords ? "pieces" : "words";
  lines.push_back(
      fmt::format("vocabulary (training split, with SOS EOS <pad> <unk>): English {} {}, "
                  "Spanish {} {}{}",
                  d.english.size(), unit, d.spanish.size(), unit,
                  !d.english_subwords ? ""
                  : d.english_subwords->serialized_proto() == d.spanish_subwords->serialized_proto()
                      ? " (one joint SentencePiece model)"
                      : " (SentencePiece models)"));
  if (d.validation.size() > 0) {
    lines.push_back(fmt::format("validation <unk> rate (of the {}): English {:.3f} %, Spanish {:.3f} %", unit,
                                100 * unknown_rate(d.validation.src), 100 * unknown_rate(d.validation.tgt)));
  }
  if (d.english_subwords) lines.push_back(fmt::format("L = {} (the longest side of a pair in pieces, + 2)", d.max_len));
  const auto& pairs = d.corpus.pairs;
  const auto en = longest(
      pairs, [](const SentencePair& p) -> const auto& { return p.english; });
  const auto es = longest(
      pairs, [](const SentencePair& p) -> const auto& { return p.spanish; });
  lines.push_back(
      fmt::format("longest English sentence ({} words): {}", pairs[en].english.size(), join_words(pairs[en].english)));
  lines.push_back(
      fmt::format("longest Spanish sentence ({} words): {}", pairs[es].spanish.size(), join_words(pairs[es].spanish)));
  return lines;
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
