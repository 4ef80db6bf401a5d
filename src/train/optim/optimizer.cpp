#include "dls/train/optim/optimizer.h"

#include <torch/torch.h>

#include "dls/train/optim/fused_adam.h"
#include "dls/train/optim/graph_safe_adam.h"

namespace dls::train {

namespace {

torch::optim::AdamWOptions adamw_options(const settings::OptimizerSettings& options, double lr) {
  return torch::optim::AdamWOptions(lr)
      .betas({options.beta1, options.beta2})
      .eps(options.eps)
      .weight_decay(options.weight_decay);
}

torch::optim::AdamOptions adam_options(const settings::OptimizerSettings& options, double lr) {
  return torch::optim::AdamOptions(lr)
      .betas({options.beta1, options.beta2})
      .eps(options.eps)
      .weight_decay(options.weight_decay);
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const settings::OptimizerSettings& options, double lr) {
  if (options.kind == settings::OptimizerKind::kAdamW) {
    if (options.fused) {
      return std::make_unique<FusedAdamW>(std::move(parameters), adamw_options(options, lr), at::get_num_threads());
    }
    return std::make_unique<torch::optim::AdamW>(std::move(parameters), adamw_options(options, lr));
  }
  if (options.fused) {
    return std::make_unique<FusedAdam>(std::move(parameters), adam_options(options, lr), at::get_num_threads());
  }
  return std::make_unique<torch::optim::Adam>(std::move(parameters), adam_options(options, lr));
}

std::unique_ptr<torch::optim::Optimizer> make_graph_safe_optimizer(std::vector<torch::Tensor> parameters,
                                                                   torch::Tensor flat_gradients,
                                                                   const settings::OptimizerSettings& options,
                                                                   double lr) {
  if (options.kind == settings::OptimizerKind::kAdamW) {
    return std::make_unique<GraphSafeAdamW>(std::move(parameters), adamw_options(options, lr),
                                            std::move(flat_gradients), options.clip_grad_norm);
  }
  return std::make_unique<GraphSafeAdam>(std::move(parameters), adam_options(options, lr), std::move(flat_gradients),
                                         options.clip_grad_norm);
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

}  // namespace dls::train
