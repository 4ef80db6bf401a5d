#include "dls/eval/decoding.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "dls/data/vocabulary.h"
#include "dls/util/parallel_chunks.h"

namespace dls::eval {

namespace {

// Before each step: the caller may have stopped wanting the translations.
void stop_if_cancelled(const DecodeOptions& options) {
  if (options.cancelled && options.cancelled()) throw DecodingCancelled("decoding cancelled by its caller");
}

// Words of one row of tokens [R, L] from position 1 up to (excluding) the first EOS.
TokenIds words_of(const torch::Tensor& row, std::int64_t length, std::int64_t eos) {
  TokenIds words;
  const auto* data = row.data_ptr<std::int64_t>();
  for (std::int64_t t = 1; t < length && data[t] != eos; ++t) words.push_back(data[t]);
  return words;
}

// The decoding state of every model of an ensemble, stepped together: each model gets the
// same words and row selections, and step() averages their log-probabilities. With one
// model it is that model's session (its logits when asked for them).
class EnsembleSession {
 public:
  EnsembleSession(const Models& models, const torch::Tensor& src, std::int64_t sos, std::int64_t max_length) {
    for (const auto& model : models) sessions_.push_back(model.start_decoding(src, sos, max_length));
  }
  // [R, V]: log-probabilities (averaged over the models), or one model's logits.
  torch::Tensor step(bool log_probabilities = true) {
    if (sessions_.size() == 1) return sessions_.front()->step(log_probabilities);
    auto sum = sessions_.front()->step();
    for (std::size_t i = 1; i < sessions_.size(); ++i) sum = sum + sessions_[i]->step();
    return sum / static_cast<double>(sessions_.size());
  }
  void append(const torch::Tensor& words) {
    for (auto& session : sessions_) session->append(words);
  }
  void select_rows(const torch::Tensor& index) {
    for (auto& session : sessions_) session->select_rows(index);
  }
  std::int64_t length() const { return sessions_.front()->length(); }
  std::int64_t max_length() const { return sessions_.front()->max_length(); }
  std::int64_t rows() const { return sessions_.front()->rows(); }
  const torch::Tensor& tokens() const { return sessions_.front()->tokens(); }

 private:
  std::vector<std::unique_ptr<DecodingSession>> sessions_;
};

using NBest = std::vector<std::vector<Hypothesis>>;

// Writes the words of session rows `rows` (a [K] index) and their log-probabilities (from
// `total` [R]) to result[sentence[row] - first].
void collect(const EnsembleSession& session, const torch::Tensor& rows, const torch::Tensor& sentence,
             const torch::Tensor& total, std::int64_t first, std::int64_t eos, NBest& result) {
  const auto tokens = session.tokens().index_select(0, rows).to(torch::kCPU).contiguous();  // read on the host
  const auto ids = sentence.index_select(0, rows).to(torch::kCPU).contiguous();
  const auto sums = total.index_select(0, rows).to(torch::kCPU).contiguous();
  const auto* id = ids.data_ptr<std::int64_t>();
  for (std::int64_t k = 0; k < rows.size(0); ++k) {
    result[static_cast<std::size_t>(id[k] - first)] = {
        {words_of(tokens[k], session.length(), eos), sums.data_ptr<double>()[k]}};
  }
}

// A number in [0, 1) that depends only on (seed, row, position): SplitMix64's finaliser over
// their mix, so a sampled word does not depend on which rows shared a batch.
double uniform(std::uint64_t seed, std::uint64_t row, std::uint64_t position) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (row + 1) + 0xD1B54A32D192ED03ull * (position + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// One word per row [R] drawn from logits [R, V] as options.sampling says; rows [R] are the
// rows' numbers in the call (the draws' keys), `position` the word's.
torch::Tensor draw(const torch::Tensor& logits, const torch::Tensor& rows, std::int64_t position,
                   const DecodeOptions& options) {
  const auto ids = rows.to(torch::kCPU).contiguous();
  std::vector<double> uniforms;
  for (std::int64_t r = 0; r < ids.size(0); ++r) {
    uniforms.push_back(uniform(options.sampling.seed, static_cast<std::uint64_t>(ids.data_ptr<std::int64_t>()[r]),
                               static_cast<std::uint64_t>(position)));
  }
  return sample_rows(logits, options.sampling, uniforms).to(logits.device());
}

// Greedy decoding (`options` without kSample) or sampling; rows of src are the call's rows
// first, first + 1, ...
NBest greedy_or_sample(const Models& models, const torch::Tensor& src, std::int64_t first, std::int64_t sos,
                       std::int64_t eos, const DecodeOptions& options) {
  EnsembleSession session(models, src, sos, options.max_length);
  NBest result(static_cast<std::size_t>(src.size(0)));
  const bool sample = options.method == DecodeMethod::kSample;
  // Session row i decodes sentence[i]. A sentence leaves the session with its EOS, so each
  // later step computes only the unfinished ones: the output layer over the vocabulary,
  // most of a step's cost, shrinks as sentences end (most translations are shorter than L).
  auto sentence = torch::arange(first, first + src.size(0), src.options().dtype(torch::kLong));
  // log p of each row's words so far (EOS included once written): the score that would
  // otherwise take a teacher-forced pass over the translation (Translator's scores).
  auto total = torch::full({src.size(0)}, options.scores ? 0.0 : NAN, src.options().dtype(torch::kDouble));
  while (session.length() < session.max_length()) {
    stop_if_cancelled(options);
    // Greedy: argmax of the logits, the same word as of the log-probabilities, one pass over
    // the vocabulary instead of four (log_softmax's max, exp-sum, subtraction, then argmax).
    const auto scores = session.step(/*log_probabilities=*/false);                                      // [R, V]
    const auto words = sample ? draw(scores, sentence, session.length(), options) : scores.argmax(-1);  // [R]
    session.append(words);
    if (options.scores) {  // log softmax at the chosen word only: its logit less the log-sum-exp of its row
      total += (scores.gather(1, words.unsqueeze(1)).squeeze(1) - scores.logsumexp(-1)).to(torch::kDouble);
    }
    const auto finished = words == eos;
    if (!finished.any().item<bool>()) continue;
    collect(session, finished.nonzero().squeeze(1), sentence, total, first, eos, result);
    const auto unfinished = (~finished).nonzero().squeeze(1);
    if (unfinished.numel() == 0) return result;
    session.select_rows(unfinished);
    sentence = sentence.index_select(0, unfinished);
    total = total.index_select(0, unfinished);
  }
  collect(session, torch::arange(session.rows(), sentence.options()), sentence, total, first, eos, result);
  return result;
}

// GNMT's coverage term of each row: sum_i log(min(sum_j a_ji, 1)) over the real source
// tokens i of src [R, S] (not <pad>), a_ji the attention of the step that wrote word j of
// tokens [R, C] (SOS, `generated` [R] words, EOS included, then EOS) -> [R], <= 0.
torch::Tensor coverage_log_sums(const TranslationModel& model, const torch::Tensor& src, const torch::Tensor& tokens,
                                const torch::Tensor& generated) {
  const auto weights = model.cross_attention(src, tokens).to(torch::kFloat);  // [R, C-1, S]
  const auto steps = torch::arange(weights.size(1), generated.options()).unsqueeze(0);
  const auto writing = (steps < generated.unsqueeze(1)).to(weights.dtype());  // [R, C-1]
  const auto coverage = (weights * writing.unsqueeze(2)).sum(1);              // [R, S]
  const auto logs = coverage.clamp(1e-10, 1.0).log();
  return (logs * (src != data::Vocabulary::kPad).to(logs.dtype())).sum(1);
}

NBest beam_search(const Models& models, const torch::Tensor& src, std::int64_t sos, std::int64_t eos,
                  const DecodeOptions& options) {
  const std::int64_t batch = src.size(0);
  EnsembleSession session(models, src, sos, options.max_length);
  auto log_probs = session.step();  // [B, V]
  const std::int64_t vocab = log_probs.size(1);
  // No hypothesis ends before its first word: an empty translation, EOS alone, scores one
  // log-probability against the sum of several for any real one and, with no length
  // penalty, won more often the wider the beam (fairseq's --min-len 1, Marian's alike).
  log_probs.select(1, eos).fill_(-INFINITY);
  const std::int64_t beams = std::min(options.beam_size, vocab - 1);
  auto [scores, words] = log_probs.topk(beams, -1);          // [B, K]
  const auto on_device = src.options().dtype(torch::kLong);  // every index and mask lives with src
  session.select_rows(torch::arange(batch, on_device).repeat_interleave(beams));
  session.append(words.reshape({-1}));
  auto finished = words.reshape({-1}) == eos;                // [B*K]
  auto generated = torch::ones({batch * beams}, on_device);  // words incl. EOS per row
  // A finished row can only continue with EOS, at no cost.
  auto eos_only = torch::full({vocab}, -INFINITY, log_probs.options());
  eos_only[eos] = 0.0;
  const auto row_base = (torch::arange(batch, on_device) * beams).unsqueeze(1);  // [B, 1]
  while (session.length() < session.max_length() && !finished.all().item<bool>()) {
    stop_if_cancelled(options);
    log_probs = torch::where(finished.unsqueeze(1), eos_only.unsqueeze(0), session.step());
    const auto candidates = (scores.reshape({-1, 1}) + log_probs).view({batch, beams * vocab});
    auto [best, index] = candidates.topk(beams, -1);  // [B, K]
    const auto origin = index.div(vocab, "floor");
    const auto word = index.remainder(vocab).reshape({-1});
    const auto rows = (row_base + origin).reshape({-1});
    const auto was_finished = finished.index_select(0, rows);
    session.select_rows(rows);
    session.append(word);
    generated = generated.index_select(0, rows) + (~was_finished).to(torch::kLong);
    finished = was_finished.logical_or(word == eos);
    scores = best;
  }
  auto ranked = scores.reshape({-1});
  if (options.length_penalty != 0.0) {
    ranked = ranked / ((generated.to(torch::kFloat) + 5.0) / 6.0).pow(options.length_penalty);
  }
  if (options.coverage_penalty != 0.0) {
    // Each row's SOS and written words, EOS after them (what a finished row appends).
    const auto positions = torch::arange(session.max_length(), on_device).unsqueeze(0);
    const auto written = torch::where(positions <= generated.unsqueeze(1), session.tokens(), eos);
    ranked = ranked + options.coverage_penalty *
                          coverage_log_sums(models.front(), src.repeat_interleave(beams, 0), written, generated);
  }
  // Each sentence's beams best first by their ranking; the n best that are real hypotheses
  // (a beam wider than the words that can follow holds -inf rows).
  const auto order = ranked.view({batch, beams}).argsort(-1, /*descending=*/true).to(torch::kCPU).contiguous();
  const auto tokens = session.tokens().to(torch::kCPU).contiguous();  // read on the host
  const auto sums = scores.reshape({-1}).to(torch::kCPU, torch::kDouble).contiguous();
  const auto keep = std::max<std::int64_t>(1, std::min(options.n_best, beams));
  NBest result(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t k = 0; k < beams && static_cast<std::int64_t>(result[b].size()) < keep; ++k) {
      const auto row = b * beams + order[b][k].item<std::int64_t>();
      const double sum = sums.data_ptr<double>()[row];
      if (!std::isfinite(sum) && !result[b].empty()) break;
      result[b].push_back({words_of(tokens[row], session.length(), eos), sum});
    }
  }
  return result;
}

NBest one_shot(const Models& models, const torch::Tensor& src, std::int64_t sos, std::int64_t eos,
               std::int64_t max_length) {
  for (const auto& model : models) {
    if (model.is_rnn()) throw std::invalid_argument("DLStudio's one-shot decoding reads a transformer's outputs only");
  }
  const std::int64_t length = max_length > 0 ? max_length : models.front().max_seq_length();
  auto target = torch::full({src.size(0), length}, eos, src.options().dtype(torch::kLong));
  target.select(1, 0).fill_(sos);
  torch::Tensor scores;  // [B, L-1, V]: one model's logits, or the ensemble's mean log-probabilities
  for (const auto& model : models) {
    auto out = model.transformer()->forward(src, target);  // log-probabilities
    if (models.size() > 1) out = out.log_softmax(-1);
    scores = scores.defined() ? scores + out : out;
  }
  const auto predicted = scores.argmax(-1);  // [B, L-1] words 1..L-1
  // Prepend a column so words_of() can skip position 0 as for the other methods.
  const auto tokens = torch::cat({target.narrow(1, 0, 1), predicted}, 1).to(torch::kCPU).contiguous();
  NBest result;
  for (std::int64_t b = 0; b < src.size(0); ++b) result.push_back({{words_of(tokens[b], length, eos), NAN}});
  return result;
}

// Rows first.. of the call in src [B, L], each as its method decodes it.
NBest decode_rows(const Models& models, const torch::Tensor& src, std::int64_t first, std::int64_t sos,
                  std::int64_t eos, const DecodeOptions& options) {
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, L]");
  TORCH_CHECK(!models.empty(), "decoding needs a model");
  // Eval mode while decoding; each model's own mode back afterwards, also when a chunk throws
  // (DecodingCancelled).
  struct EvalModeScope {
    const Models& models;
    std::vector<bool> was_training;
    explicit EvalModeScope(const Models& m) : models(m) {
      for (const auto& model : models) {
        was_training.push_back(model.module().is_training());
        model.module().eval();
      }
    }
    ~EvalModeScope() {
      for (std::size_t i = 0; i < models.size(); ++i) models[i].module().train(was_training[i]);
    }
  } eval_mode(models);
  std::vector<NBest> parts(static_cast<std::size_t>(util::effective_chunks(src.size(0), options.workers)));
  util::for_each_chunk(src.size(0), options.workers, [&](int k, std::int64_t begin, std::int64_t end) {
    torch::NoGradGuard no_grad;  // grad mode is per thread
    stop_if_cancelled(options);  // beam search's first step and DLStudio's one pass
    const auto rows = src.slice(0, begin, end);
    auto& result = parts[static_cast<std::size_t>(k)];
    switch (options.method) {
      case DecodeMethod::kGreedy:
      case DecodeMethod::kSample:
        result = greedy_or_sample(models, rows, first + begin, sos, eos, options);
        break;
      case DecodeMethod::kBeam:
        result = beam_search(models, rows, sos, eos, options);
        break;
      case DecodeMethod::kDLStudioOneShot:
        result = one_shot(models, rows, sos, eos, options.max_length);
        break;
    }
  });
  NBest result;
  for (auto& part : parts) std::move(part.begin(), part.end(), std::back_inserter(result));
  return result;
}

std::vector<TokenIds> best_of(NBest n_best) {
  std::vector<TokenIds> best;
  best.reserve(n_best.size());
  for (auto& hypotheses : n_best) best.push_back(std::move(hypotheses.front().words));
  return best;
}

}  // namespace

std::vector<TokenIds> decode_batch(const TranslationModel& model, const torch::Tensor& src, std::int64_t sos,
                                   std::int64_t eos, const DecodeOptions& options) {
  return best_of(decode_rows({model}, src, 0, sos, eos, options));
}

std::vector<std::vector<Hypothesis>> translate_n_best(const Models& models, const torch::Tensor& src, std::int64_t sos,
                                                      std::int64_t eos, const DecodeOptions& options) {
  NBest all;
  all.reserve(static_cast<std::size_t>(src.size(0)));
  for (std::int64_t start = 0; start < src.size(0); start += options.batch_size) {
    const auto rows = std::min(options.batch_size, src.size(0) - start);
    auto part = decode_rows(models, src.narrow(0, start, rows), start, sos, eos, options);
    std::move(part.begin(), part.end(), std::back_inserter(all));
  }
  return all;
}

std::vector<TokenIds> translate(const TranslationModel& model, const torch::Tensor& src, std::int64_t sos,
                                std::int64_t eos, const DecodeOptions& options) {
  return best_of(translate_n_best({model}, src, sos, eos, options));
}

}  // namespace dls::eval
