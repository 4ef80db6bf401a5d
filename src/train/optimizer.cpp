#include "dls/train/optimizer.h"

#include <stdexcept>

#include <torch/torch.h>

#include "dls/train/fused_adam.h"

namespace dls::train {

util::KeyValues OptimizerOptions::to_settings() const {
  util::KeyValues settings;
  settings.set("kind", to_string(kind));
  settings.set("beta1", beta1);
  settings.set("beta2", beta2);
  settings.set("eps", eps);
  settings.set("weight_decay", weight_decay);
  settings.set("clip_grad_norm", clip_grad_norm);
  return settings;
}

OptimizerOptions OptimizerOptions::from_settings(const util::KeyValues& settings) {
  OptimizerOptions options;
  options.kind = parse_optimizer(settings.get("kind"));
  options.beta1 = settings.get_double("beta1");
  options.beta2 = settings.get_double("beta2");
  options.eps = settings.get_double("eps");
  options.weight_decay = settings.get_double("weight_decay");
  options.clip_grad_norm = settings.get_double("clip_grad_norm");
  return options;
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const OptimizerOptions& options,
                                                        double lr) {
  if (options.kind == OptimizerKind::kAdamW) {
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

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "adam") return OptimizerKind::kAdam;
  if (name == "adamw") return OptimizerKind::kAdamW;
  throw std::invalid_argument("unknown optimizer '" + name + "' (expected adam or adamw)");
}

std::string to_string(OptimizerKind kind) { return kind == OptimizerKind::kAdamW ? "adamw" : "adam"; }

}  // namespace dls::train
