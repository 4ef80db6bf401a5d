#include "dls/eval/lm_evaluation.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/models/language_model_loss.h"
#include "dls/util/progress.h"

namespace dls::eval {

TokenLikelihood token_likelihood(LanguageModel& model, const torch::Tensor& tokens, std::int64_t pad_index,
                                 std::int64_t batch_size, const std::string& progress, double progress_after_s) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto device = model->parameters().front().device();
  LossOptions options;  // plain NLL
  options.pad_index = pad_index;
  TokenLikelihood total;
  const std::int64_t n = tokens.size(0);
  const auto started = std::chrono::steady_clock::now();
  std::optional<util::ProgressBar> bar;  // from progress_after_s on: a short pass says nothing
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const auto batch = tokens.narrow(0, start, std::min(batch_size, n - start)).to(device);
    const auto real = (batch.narrow(1, 1, batch.size(1) - 1) != pad_index).sum().item<std::int64_t>();
    total.nll_sum += language_model_loss(model, batch, options).item<double>() * static_cast<double>(real);
    total.tokens += real;
    const auto done = std::min(n, start + batch_size);
    if (!bar && !progress.empty() && spdlog::should_log(spdlog::level::info) &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= progress_after_s) {
      util::ProgressOptions options;
      options.unit = "rows";
      bar.emplace(n, progress, options);
    }
    if (bar) bar->update(done);
  }
  if (bar) bar->finish();
  model->train(was_training);
  return total;
}

}  // namespace dls::eval
