#include "dls/eval/seq2seq_evaluation.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/util/random.h"

namespace dls::eval {

namespace {

// The standard per-token loss of log_probs [..., V] against targets [...]: NLL, or with
// label smoothing (1 - e) * NLL + e * mean over the vocabulary of -log p.
torch::Tensor per_token_loss(const torch::Tensor& log_probs, const torch::Tensor& targets, const LossOptions& options) {
  const auto nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
  if (options.label_smoothing <= 0) return nll;
  return (1.0 - options.label_smoothing) * nll - options.label_smoothing * log_probs.mean(-1);
}

}  // namespace

torch::Tensor sequence_loss(const torch::Tensor& log_probs, const torch::Tensor& targets, const LossOptions& options) {
  TORCH_CHECK(log_probs.dim() == 3 && targets.dim() == 2 && log_probs.size(0) == targets.size(0) &&
                  log_probs.size(1) == targets.size(1),
              "expected log-probabilities [B, L-1, V] and targets [B, L-1]");
  if (options.dlstudio) {
    // -log p(target) at every position [B, L-1], averaged over the batch, summed over positions.
    return (-log_probs.gather(2, targets.unsqueeze(2)).squeeze(2)).mean(0).sum();
  }
  const auto per_token = per_token_loss(log_probs, targets, options);  // [B, L-1]
  const auto real = (targets != options.pad_index).to(per_token.dtype());
  return (per_token * real).sum() / real.sum().clamp_min(1.0);
}

torch::Tensor sequence_loss_from_states(torch::nn::Linear& out, const torch::Tensor& states,
                                        const torch::Tensor& targets, const LossOptions& options) {
  TORCH_CHECK(
      states.dim() == 3 && targets.dim() == 2 && states.size(0) == targets.size(0) && states.size(1) == targets.size(1),
      "expected final states [B, L-1, M] and targets [B, L-1]");
  // The loss in fp32, under autocast (--precision bf16) too.
  if (options.dlstudio) return sequence_loss(torch::log_softmax(out(states), -1, torch::kFloat), targets, options);
  // Rows of real target tokens only: [B, L-1, M] -> [N, M] -> log-probabilities [N, V].
  const auto real = (targets != options.pad_index).reshape({-1}).nonzero().squeeze(1);
  if (real.numel() == 0) return (states.sum() * 0.0);  // no real token: loss 0, as sequence_loss
  const auto rows = states.reshape({-1, states.size(2)}).index_select(0, real);
  const auto real_targets = targets.reshape({-1}).index_select(0, real);
  return per_token_loss(torch::log_softmax(out(rows), -1, torch::kFloat), real_targets, options).mean();
}

LossDenominators loss_denominators(const torch::Tensor& targets, const LossOptions& options) {
  LossDenominators d;
  d.rows = static_cast<double>(targets.size(0));
  if (!options.dlstudio) d.real_tokens = (targets != options.pad_index).sum().item<double>();
  return d;
}

namespace {

// A chunk's loss (its own mean) scaled to its share of the whole batch's mean.
torch::Tensor loss_share(const torch::Tensor& loss, const LossDenominators& chunk, const LossDenominators& batch,
                         const LossOptions& options) {
  if (options.dlstudio) return loss * (chunk.rows / batch.rows);  // a mean over rows
  // A mean over real tokens (a chunk without any has loss 0, and a share of 0).
  return batch.real_tokens > 0 ? loss * (chunk.real_tokens / batch.real_tokens) : loss;
}

}  // namespace

torch::Tensor sequence_loss_share(const torch::Tensor& log_probs, const torch::Tensor& targets,
                                  const LossOptions& options, const LossDenominators& batch) {
  return loss_share(sequence_loss(log_probs, targets, options), loss_denominators(targets, options), batch, options);
}

torch::Tensor model_loss_share(Seq2SeqTransformer& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch) {
  const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  const auto chunk = loss_denominators(targets, options);
  const auto loss =
      sequence_loss_from_states(model->master_decoder->out, model->final_states(src, tgt), targets, options);
  return loss_share(loss, chunk, batch, options);
}

double dataset_loss(Seq2SeqTransformer& model, const data::EncodedPairs& pairs, const LossOptions& options,
                    std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto device = model->parameters().front().device();
  double total = 0;
  const std::int64_t n = pairs.size();
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const std::int64_t rows = std::min(batch_size, n - start);
    const auto src = pairs.src.narrow(0, start, rows).to(device);
    const auto tgt = pairs.tgt.narrow(0, start, rows).to(device);
    const auto loss = sequence_loss_from_states(model->master_decoder->out, model->final_states(src, tgt),
                                                tgt.narrow(1, 1, tgt.size(1) - 1), options);
    total += loss.item<double>() * static_cast<double>(rows);
  }
  model->train(was_training);
  return n > 0 ? total / static_cast<double>(n) : 0.0;
}

TranslationResult translate_and_score(Seq2SeqTransformer& model, const torch::Tensor& src,
                                      const data::Vocabulary& spanish,
                                      const std::vector<std::vector<std::string>>& references,
                                      const DecodeOptions& options, const data::SubwordModel* subwords) {
  TORCH_CHECK(static_cast<std::size_t>(src.size(0)) == references.size(), "one reference per source sentence");
  const auto device = model->parameters().front().device();
  const auto start = std::chrono::steady_clock::now();
  const auto ids = translate(model, src.to(device), data::Vocabulary::kSos, data::Vocabulary::kEos, options);
  TranslationResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.sentences_per_s = result.seconds > 0 ? static_cast<double>(ids.size()) / result.seconds : 0;
  std::vector<std::vector<Tokens>> refs;
  std::vector<Tokens> hyps;
  std::vector<std::vector<std::string>> ref_texts;
  std::vector<std::string> hyp_texts;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto tokens = spanish.decode(ids[i]);
    result.hypotheses.push_back(subwords != nullptr ? subwords->decode(tokens) : tokens);
    hyps.push_back(strip_special_tokens(result.hypotheses.back()));
    refs.push_back({strip_special_tokens(references[i])});
    hyp_texts.push_back(data::join_words(hyps.back()));
    ref_texts.push_back({data::join_words(refs.back().front())});
  }
  if (hyps.empty()) return result;
  result.bleu = corpus_bleu(refs, hyps);
  SacreBleuOptions sacrebleu_options;
  sacrebleu_options.lowercased_text = true;
  result.sacrebleu = sacrebleu_corpus(hyp_texts, ref_texts, sacrebleu_options);
  ChrfOptions chrf_options;
  chrf_options.lowercased_text = true;
  result.chrf = corpus_chrf(hyp_texts, ref_texts, chrf_options);
  return result;
}

std::string format_sample(const std::vector<std::string>& english, const std::vector<std::string>& reference,
                          const std::vector<std::string>& translation, const std::string& model_name) {
  const auto wrap = [](const std::vector<std::string>& words) {
    return "SOS " + data::join_words(words) + (words.empty() ? "EOS" : " EOS");
  };
  const bool correct = translation == reference;
  return "The input sentence pair:  ['" + wrap(english) + "'] ['" + wrap(reference) +
         "']\nThe translation produced by " + model_name + ":  " + wrap(translation) + "   " +
         (correct ? "[CORRECT]" : "[WRONG]");
}

std::string model_name(const Seq2SeqConfig& config) {
  return config.transformer().variant() == Variant::kFG ? "TransformerFG" : "TransformerPreLN";
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
  util::Rng rng(seed);
  auto order = util::random_permutation(n, rng);
  order.resize(std::min(count, n));
  return order;
}

}  // namespace dls::eval
