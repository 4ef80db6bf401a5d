#include "dls/eval/decoding.h"

#include <cmath>

#include <torch/torch.h>

#include "dls/models/decoder_session.h"
#include "dls/util/parallel_chunks.h"

namespace dls::eval {

namespace {

// Words of one row of tokens [R, L] from position 1 up to (excluding) the first EOS.
TokenIds words_of(const torch::Tensor& row, std::int64_t length, std::int64_t eos) {
  TokenIds words;
  const auto* data = row.data_ptr<std::int64_t>();
  for (std::int64_t t = 1; t < length && data[t] != eos; ++t) words.push_back(data[t]);
  return words;
}

// Writes the words of session rows `rows` (a [K] index) to result[sentence[row]].
void collect(const DecoderSession& session, const torch::Tensor& rows, const torch::Tensor& sentence, std::int64_t eos,
             std::vector<TokenIds>& result) {
  const auto tokens = session.tokens().index_select(0, rows).to(torch::kCPU).contiguous();  // read on the host
  const auto ids = sentence.index_select(0, rows).to(torch::kCPU).contiguous();
  const auto* id = ids.data_ptr<std::int64_t>();
  for (std::int64_t k = 0; k < rows.size(0); ++k) {
    result[static_cast<std::size_t>(id[k])] = words_of(tokens[k], session.length(), eos);
  }
}

std::vector<TokenIds> greedy(Seq2SeqTransformer& model, const torch::Tensor& src, std::int64_t sos, std::int64_t eos,
                             std::int64_t max_length) {
  DecoderSession session(model, src, sos, {}, max_length);
  std::vector<TokenIds> result(static_cast<std::size_t>(src.size(0)));
  // Session row i decodes sentence[i]. A sentence leaves the session with its EOS, so each
  // later step computes only the unfinished ones: the output layer over the vocabulary,
  // most of a step's cost, shrinks as sentences end (most translations are shorter than L).
  auto sentence = torch::arange(src.size(0), src.options().dtype(torch::kLong));
  while (session.length() < session.max_length()) {
    // argmax of the logits: the same word as of the log-probabilities, one pass over the
    // vocabulary instead of four (log_softmax's max, exp-sum, subtraction, then argmax).
    const auto words = session.step(/*log_probabilities=*/false).argmax(-1);  // [R]
    session.append(words);
    const auto finished = words == eos;
    if (!finished.any().item<bool>()) continue;
    collect(session, finished.nonzero().squeeze(1), sentence, eos, result);
    const auto unfinished = (~finished).nonzero().squeeze(1);
    if (unfinished.numel() == 0) return result;
    session.select_rows(unfinished);
    sentence = sentence.index_select(0, unfinished);
  }
  collect(session, torch::arange(session.rows(), sentence.options()), sentence, eos, result);
  return result;
}

std::vector<TokenIds> beam_search(Seq2SeqTransformer& model, const torch::Tensor& src, std::int64_t sos,
                                  std::int64_t eos, const DecodeOptions& options) {
  const std::int64_t batch = src.size(0);
  DecoderSession session(model, src, sos, {}, options.max_length);
  auto log_probs = session.step();  // [B, V]
  const std::int64_t vocab = log_probs.size(1);
  const std::int64_t beams = std::min(options.beam_size, vocab);
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
  const auto choice = ranked.view({batch, beams}).argmax(-1);         // [B]
  const auto tokens = session.tokens().to(torch::kCPU).contiguous();  // read on the host
  std::vector<TokenIds> result;
  for (std::int64_t b = 0; b < batch; ++b) {
    result.push_back(words_of(tokens[b * beams + choice[b].item<std::int64_t>()], session.length(), eos));
  }
  return result;
}

std::vector<TokenIds> one_shot(Seq2SeqTransformer& model, const torch::Tensor& src, std::int64_t sos, std::int64_t eos,
                               std::int64_t max_length) {
  const std::int64_t length = max_length > 0 ? max_length : model->config().transformer().max_seq_length();
  auto target = torch::full({src.size(0), length}, eos, src.options().dtype(torch::kLong));
  target.select(1, 0).fill_(sos);
  const auto predicted = model(src, target).argmax(-1);  // [B, L-1] words 1..L-1
  // Prepend a column so words_of() can skip position 0 as for the other methods.
  const auto tokens = torch::cat({target.narrow(1, 0, 1), predicted}, 1).to(torch::kCPU).contiguous();
  std::vector<TokenIds> result;
  for (std::int64_t b = 0; b < src.size(0); ++b) result.push_back(words_of(tokens[b], length, eos));
  return result;
}

}  // namespace

std::vector<TokenIds> decode_batch(Seq2SeqTransformer& model, const torch::Tensor& src, std::int64_t sos,
                                   std::int64_t eos, const DecodeOptions& options) {
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, L]");
  const bool was_training = model->is_training();
  model->eval();
  std::vector<std::vector<TokenIds>> parts(
      static_cast<std::size_t>(util::effective_chunks(src.size(0), options.workers)));
  util::for_each_chunk(src.size(0), options.workers, [&](int k, std::int64_t begin, std::int64_t end) {
    torch::NoGradGuard no_grad;  // grad mode is per thread
    const auto rows = src.slice(0, begin, end);
    auto& result = parts[static_cast<std::size_t>(k)];
    switch (options.method) {
      case DecodeMethod::kGreedy:
        result = greedy(model, rows, sos, eos, options.max_length);
        break;
      case DecodeMethod::kBeam:
        result = beam_search(model, rows, sos, eos, options);
        break;
      case DecodeMethod::kDLStudioOneShot:
        result = one_shot(model, rows, sos, eos, options.max_length);
        break;
    }
  });
  model->train(was_training);
  std::vector<TokenIds> result;
  for (auto& part : parts) std::move(part.begin(), part.end(), std::back_inserter(result));
  return result;
}

std::vector<TokenIds> translate(Seq2SeqTransformer& model, const torch::Tensor& src, std::int64_t sos, std::int64_t eos,
                                const DecodeOptions& options) {
  std::vector<TokenIds> all;
  all.reserve(static_cast<std::size_t>(src.size(0)));
  for (std::int64_t start = 0; start < src.size(0); start += options.batch_size) {
    const auto rows = std::min(options.batch_size, src.size(0) - start);
    auto part = decode_batch(model, src.narrow(0, start, rows), sos, eos, options);
    std::move(part.begin(), part.end(), std::back_inserter(all));
  }
  return all;
}

std::string to_string(DecodeMethod method) {
  switch (method) {
    case DecodeMethod::kGreedy:
      return "greedy";
    case DecodeMethod::kBeam:
      return "beam";
    case DecodeMethod::kDLStudioOneShot:
      return "dlstudio";
  }
  return "?";
}

}  // namespace dls::eval
