#include "dls/eval/lm_data.h"

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

namespace dls::eval {

torch::Tensor encode_sentences(const std::vector<std::vector<std::string>>& sentences,
                               const std::vector<std::size_t>& indices, const data::Vocabulary& vocabulary,
                               int max_len, std::int64_t* unknown_words) {
  std::vector<std::int64_t> ids;
  ids.reserve(indices.size() * static_cast<std::size_t>(max_len));
  std::vector<std::string> unknown;
  for (const auto i : indices) {
    const auto row = vocabulary.encode(sentences[i], max_len, data::Vocabulary::Padding::kPad, &unknown);
    ids.insert(ids.end(), row.begin(), row.end());
  }
  if (unknown_words != nullptr) *unknown_words = static_cast<std::int64_t>(unknown.size());
  return torch::tensor(ids, torch::kInt64).view({static_cast<std::int64_t>(indices.size()), max_len});
}


namespace {

data::Vocabulary training_vocabulary(const data::SentenceCorpus& corpus, const data::CorpusSplit& split) {
  std::vector<std::vector<std::string>> training;
  training.reserve(split.training.size());
  for (const auto i : split.training) training.push_back(corpus.sentences[i]);
  return data::Vocabulary::build(training);
}

}  // namespace

LmData prepare_lm_data(const checkpoint::LmDataSettings& settings, const checkpoint::LmCheckpointContents* resumed) {
  auto corpus = data::read_sentence_corpus(settings.path, data::parse_side(settings.side), settings.max_words);
  // The split groups pairs by their English sentence: sentences stand in for it, so that
  // a sentence repeated in the corpus is never both trained on and validated.
  std::vector<data::SentencePair> as_pairs(corpus.sentences.size());
  for (std::size_t i = 0; i < as_pairs.size(); ++i) as_pairs[i].english = corpus.sentences[i];
  auto split = resumed != nullptr ? data::apply_split_definition(resumed->split, as_pairs, corpus.source)
                                  : data::split_by_english(as_pairs, settings.split_seed, settings.validation_sentences);
  auto vocabulary = resumed != nullptr ? data::Vocabulary::from_words(resumed->words) : training_vocabulary(corpus, split);
  const int max_len = settings.max_words + 2;
  std::int64_t unknown = 0;
  auto train = encode_sentences(corpus.sentences, split.training, vocabulary, max_len, nullptr);
  auto validation = encode_sentences(corpus.sentences, split.validation, vocabulary, max_len, &unknown);
  return LmData{std::move(corpus), std::move(split), std::move(vocabulary), train, validation, unknown};
}

std::vector<std::string> describe_lm_data(const LmData& d, const checkpoint::LmDataSettings& settings) {
  return {d.corpus.source + ": " + d.corpus.summary(data::parse_side(settings.side), settings.max_words),
          fmt::format("sentences: {} training, {} validation (split seed {}; a repeated sentence stays on one side)",
                      d.split.training.size(), d.split.validation.size(), d.split.definition.seed),
          fmt::format("vocabulary (training split, with SOS EOS <pad> <unk>): {} words; {} validation words "
                      "unseen in training (mapped to <unk>)",
                      d.vocabulary.size(), d.unknown_validation_words)};
}

}  // namespace dls::eval
