#include "dls/layers/row_linear.h"

#include <atomic>

#include <torch/torch.h>

#include "dls/layers/int8_linear.h"
#include "dls/util/precision.h"

namespace dls {

namespace {
std::atomic<bool> g_row_gemv{true};
}  // namespace

void set_row_gemv_enabled(bool enabled) { g_row_gemv = enabled; }
bool row_gemv_enabled() { return g_row_gemv; }

torch::Tensor row_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  const std::int64_t in = weight.size(1);
  if (int8_linear_enabled() && x.device().is_cpu() && x.scalar_type() == torch::kFloat &&
      weight.scalar_type() == torch::kFloat && !torch::GradMode::is_enabled() && !util::autocast_active(x.device())) {
    return int8_linear(x, *int8_weight_of(weight), bias);
  }
  // Under autocast the product runs in the autocast type, which addmv does not follow.
  const bool one_row = x.numel() == in && x.device().is_cpu() && x.scalar_type() == weight.scalar_type() &&
                       g_row_gemv.load(std::memory_order_relaxed) && !util::autocast_active(x.device());
  // ATen's linear: for [B, L, in] one addmm over the rows with the bias inside, where the
  // C++ frontend's (torch::nn::functional::linear) dispatches t, matmul and add_.
  if (!one_row) return torch::linear(x, weight, bias);
  auto out_sizes = x.sizes().vec();
  out_sizes.back() = weight.size(0);
  const auto row = x.reshape({in});                                                          // [in]
  const auto y = bias.defined() ? torch::addmv(bias, weight, row) : torch::mv(weight, row);  // [out]
  return y.view(out_sizes);
}

torch::Tensor row_linear(const torch::Tensor& x, const torch::nn::Linear& layer) {
  return row_linear(x, layer->weight, layer->bias);
}

}  // namespace dls
