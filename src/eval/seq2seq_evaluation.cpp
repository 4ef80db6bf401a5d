#include "dls/eval/seq2seq_evaluation.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/eval/unknown_words.h"
#include "dls/util/random.h"

namespace dls::eval {

TranslationResult translate_and_score(const TranslationModel& model, const torch::Tensor& src,
                                      const data::Vocabulary& spanish,
                                      const std::vector<std::vector<std::string>>& references,
                                      const DecodeOptions& options, const data::SubwordModel* subwords,
                                      const SourceSentences* sources) {
  TORCH_CHECK(static_cast<std::size_t>(src.size(0)) == references.size(), "one reference per source sentence");
  TORCH_CHECK(!options.replace_unknown || (sources != nullptr && sources->tokens.size() == references.size() &&
                                           sources->words.size() == references.size()),
              "replacing unknown words needs each row's source tokens and words");
  const auto device = model.module().parameters().front().device();
  const auto start = std::chrono::steady_clock::now();
  const auto ids = translate(model, src.to(device), data::Vocabulary::kSos, data::Vocabulary::kEos, options);
  TranslationResult result;
  // A translation that filled every position after SOS has capacity - 1 words and no EOS.
  const auto capacity = options.max_length > 0 ? options.max_length : model.max_seq_length();
  std::vector<std::vector<std::string>> outputs;
  for (const auto& row : ids) outputs.push_back(spanish.decode(row));
  std::vector<std::vector<AlignmentPoint>> aligned(ids.size());
  if (options.replace_unknown) {
    std::vector<const std::vector<std::string>*> source_tokens, written;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      source_tokens.push_back(&sources->tokens[i]);
      written.push_back(&outputs[i]);
    }
    aligned = unknown_word_alignments(model, src.to(device), source_tokens, written, spanish, capacity,
                                      std::max<std::int64_t>(1, options.batch_size));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.sentences_per_s = result.seconds > 0 ? static_cast<double>(ids.size()) / result.seconds : 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& tokens = outputs[i];
    result.hypotheses.push_back(subwords != nullptr ? subwords->decode(tokens) : tokens);
    if (!aligned[i].empty())
      result.unknown_replaced += replace_unknown_words(result.hypotheses.back(), sources->words[i], aligned[i]);
    result.finished.push_back(static_cast<std::int64_t>(ids[i].size()) < capacity - 1);
  }
  score_translations(result, references);
  return result;
}

void score_translations(TranslationResult& result, const std::vector<std::vector<std::string>>& references) {
  TORCH_CHECK(result.hypotheses.size() == references.size(), "one reference per translation");
  std::vector<std::vector<Tokens>> refs;
  std::vector<Tokens> hyps;
  std::vector<std::vector<std::string>> ref_texts;
  std::vector<std::string> hyp_texts;
  for (std::size_t i = 0; i < references.size(); ++i) {
    hyps.push_back(strip_special_tokens(result.hypotheses[i]));
    refs.push_back({strip_special_tokens(references[i])});
    hyp_texts.push_back(data::join_words(hyps.back()));
    ref_texts.push_back({data::join_words(refs.back().front())});
  }
  if (hyps.empty()) return;
  result.bleu = corpus_bleu(refs, hyps);
  SacreBleuOptions sacrebleu_options;
  sacrebleu_options.lowercased_text = true;
  result.sacrebleu = sacrebleu_corpus(hyp_texts, ref_texts, sacrebleu_options);
  ChrfOptions chrf_options;
  chrf_options.lowercased_text = true;
  result.chrf = corpus_chrf(hyp_texts, ref_texts, chrf_options);
}

std::string format_sample(const std::vector<std::string>& english, const std::vector<std::string>& reference,
                          const std::vector<std::string>& translation, const std::string& model_name, bool finished) {
  const auto wrap = [](const std::vector<std::string>& words, bool closed = true) {
    if (!closed) return "SOS " + data::join_words(words);
    return "SOS " + data::join_words(words) + (words.empty() ? "EOS" : " EOS");
  };
  const bool correct = translation == reference;
  return "The input sentence pair:  ['" + wrap(english) + "'] ['" + wrap(reference) +
         "']\nThe translation produced by " + model_name + ":  " + wrap(translation, finished) + "   " +
         (correct ? "[CORRECT]" : "[WRONG]");
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
  util::Rng rng(seed);
  auto order = util::random_permutation(n, rng);
  order.resize(std::min(count, n));
  return order;
}

}  // namespace dls::eval
