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

template <typename Base, typename Fused, typename Options>
std::unique_ptr<torch::optim::Optimizer> adam_of(std::vector<torch::Tensor> parameters, Options adam,
                                                 const settings::OptimizerSettings& options) {
  if (options.fused) {
    return std::make_unique<Fused>(std::move(parameters), std::move(adam), at::get_num_threads(),
                                   options.clip_grad_norm);
  }
  return std::make_unique<ClippingAdamOf<Base, Options>>(std::move(parameters), std::move(adam),
                                                         options.clip_grad_norm);
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const settings::OptimizerSettings& options, double lr) {
  if (options.kind == settings::OptimizerKind::kAdamW) {
    return adam_of<torch::optim::AdamW, FusedAdamW>(std::move(parameters), adamw_options(options, lr), options);
  }
  return adam_of<torch::optim::Adam, FusedAdam>(std::move(parameters), adam_options(options, lr), options);
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
