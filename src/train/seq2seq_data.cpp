#include "seq2seq_data.h"

#include <spdlog/fmt/fmt.h>

#include "dls/data/normalize.h"

namespace dls::train {

namespace {

// The index (into pairs) of the longest sentence on one side, the first of equals.
template <typename Side>
std::size_t longest(const std::vector<data::SentencePair>& pairs, Side side) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < pairs.size(); ++i) {
    if (side(pairs[i]).size() > side(pairs[best]).size()) best = i;
  }
  return best;
}

}  // namespace

namespace {

// The vocabulary of one side of the training split.
template <typename Side>
data::Vocabulary training_vocabulary(const data::Corpus& corpus, const data::CorpusSplit& split, Side side) {
  std::vector<std::vector<std::string>> sentences;
  sentences.reserve(split.training.size());
  for (const auto i : split.training) sentences.push_back(side(corpus.pairs[i]));
  return data::Vocabulary::build(sentences);
}

}  // namespace

Seq2SeqData prepare_seq2seq_data(const checkpoint::Seq2SeqTrainOptions& options,
                                 const checkpoint::Seq2SeqCheckpointInfo* resume) {
  data::CorpusOptions corpus_options;
  corpus_options.max_words = options.max_words;
  auto corpus = data::read_corpus(options.data_path, corpus_options);
  auto split = resume != nullptr
                   ? data::apply_split_definition(resume->split, corpus.pairs, corpus.source)
                   : data::split_by_english(corpus.pairs, options.split_seed,
                                            static_cast<std::size_t>(options.validation_pairs));
  auto english = resume != nullptr
                     ? data::Vocabulary::from_words(resume->english_words)
                     : training_vocabulary(corpus, split, [](const data::SentencePair& p) { return p.english; });
  auto spanish = resume != nullptr
                     ? data::Vocabulary::from_words(resume->spanish_words)
                     : training_vocabulary(corpus, split, [](const data::SentencePair& p) { return p.spanish; });
  const int max_len = options.max_words + 2;
  const auto padding = options.dlstudio_loss ? data::Vocabulary::Padding::kEos
                                             : data::Vocabulary::Padding::kPad;
  auto train = data::encode_pairs(corpus.pairs, split.training, english, spanish, max_len, padding);
  data::EncodedPairs validation;
  if (!split.validation.empty()) {
    validation = data::encode_pairs(corpus.pairs, split.validation, english, spanish, max_len, padding);
  }
  return Seq2SeqData{std::move(corpus), std::move(split), std::move(english), std::move(spanish),
                     std::move(train), std::move(validation)};
}

std::vector<std::string> describe_seq2seq_data(const Seq2SeqData& d, int max_words) {
  std::vector<std::string> lines;
  lines.push_back(d.corpus.source + ": " + d.corpus.stats.summary(max_words));
  lines.push_back(fmt::format("pairs: {} training, {} validation (split seed {}, by English sentence)",
                              d.split.training.size(), d.split.validation.size(), d.split.definition.seed));
  lines.push_back(fmt::format("vocabulary (training split, with SOS EOS <pad> <unk>): English {} words, "
                              "Spanish {} words",
                              d.english.size(), d.spanish.size()));
  if (d.validation.size() > 0) {
    lines.push_back(fmt::format("validation words unseen in training (mapped to <unk>): English {}, Spanish {}",
                                d.validation.unknown_src, d.validation.unknown_tgt));
  }
  const auto& pairs = d.corpus.pairs;
  const auto en = longest(pairs, [](const data::SentencePair& p) -> const auto& { return p.english; });
  const auto es = longest(pairs, [](const data::SentencePair& p) -> const auto& { return p.spanish; });
  lines.push_back(fmt::format("longest English sentence ({} words): {}", pairs[en].english.size(),
                              data::join_words(pairs[en].english)));
  lines.push_back(fmt::format("longest Spanish sentence ({} words): {}", pairs[es].spanish.size(),
                              data::join_words(pairs[es].spanish)));
  return lines;
}

std::vector<std::vector<std::string>> english_sentences(const Seq2SeqData& d,
                                                        const std::vector<std::size_t>& indices) {
  std::vector<std::vector<std::string>> out;
  out.reserve(indices.size());
  for (const auto i : indices) out.push_back(d.corpus.pairs[i].english);
  return out;
}

std::vector<std::vector<std::string>> spanish_sentences(const Seq2SeqData& d,
                                                        const std::vector<std::size_t>& indices) {
  std::vector<std::vector<std::string>> out;
  out.reserve(indices.size());
  for (const auto i : indices) out.push_back(d.corpus.pairs[i].spanish);
  return out;
}

}  // namespace dls::train
