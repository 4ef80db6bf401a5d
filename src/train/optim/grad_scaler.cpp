#include "dls/train/optim/grad_scaler.h"

#include <torch/torch.h>

namespace dls::train {

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(options.init_scale) {
  TORCH_CHECK(options_.init_scale > 0 && options_.growth_factor > 1 && options_.backoff_factor > 0 &&
                  options_.backoff_factor < 1 && options_.growth_interval > 0,
              "GradScaler: init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, growth_interval > 0");
}

torch::Tensor GradScaler::scale_loss(const torch::Tensor& loss) const { return loss * scale_; }

bool GradScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> finite;  // a flag per gradient, read once: one device synchronisation
  for (const auto& p : parameters) {
    auto g = p.grad();
    if (!g.defined()) continue;
    g.mul_(1.0 / scale_);
    finite.push_back(torch::isfinite(g).all());
  }
  return finite.empty() || torch::stack(finite).all().item<bool>();
}

void GradScaler::update(bool gradients_finite) {
  if (!gradients_finite) {
    scale_ *= options_.backoff_factor;
    good_steps_ = 0;
    skipped_ += 1;
    return;
  }
  if (++good_steps_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    good_steps_ = 0;
  }
}

}  // namespace dls::train
