#include "dls/train/optim/optimizer.h"

#include <torch/torch.h>

#include "dls/train/optim/fused_adam.h"

namespace dls::train {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const settings::OptimizerSettings& options, double lr) {
  if (options.kind == settings::OptimizerKind::kAdamW) {
    auto adamw = torch::optim::AdamWOptions(lr)
                     .betas({options.beta1, options.beta2})
                     .eps(options.eps)
                     .weight_decay(options.weight_decay);
    if (options.fused) return std::make_unique<FusedAdamW>(std::move(parameters), adamw, at::get_num_threads());
    return std::make_unique<torch::optim::AdamW>(std::move(parameters), adamw);
  }
  auto adam = torch::optim::AdamOptions(lr)
                  .betas({options.beta1, options.beta2})
                  .eps(options.eps)
                  .weight_decay(options.weight_decay);
  if (options.fused) return std::make_unique<FusedAdam>(std::move(parameters), adam, at::get_num_threads());
  return std::make_unique<torch::optim::Adam>(std::move(parameters), adam);
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

}  // namespace dls::train
