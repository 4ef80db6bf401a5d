#include "dls/train/optim/graph_safe_adam.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <torch/torch.h>

#include "train/optim/adam_state.h"

namespace dls::train {

template <typename Base, typename Options>
GraphSafeAdamOf<Base, Options>::GraphSafeAdamOf(std::vector<torch::Tensor> params, Options options,
                                                torch::Tensor flat_gradients, double clip_norm)
    : Base(std::move(params), std::move(options)), gradients_(std::move(flat_gradients)), clip_norm_(clip_norm) {
  TORCH_CHECK(this->param_groups_.size() == 1, "GraphSafeAdam: one parameter group");
  TORCH_CHECK(!static_cast<const Options&>(this->param_groups_[0].options()).amsgrad(), "GraphSafeAdam: no AMSGrad");
  TORCH_CHECK(gradients_.dim() == 1 && gradients_.scalar_type() == torch::kFloat32, "GraphSafeAdam: float32 gradients");
  // Every grad() must be its slice of the flat tensor, or the update would not see it.
  std::int64_t offset = 0;
  const auto* base = gradients_.data_ptr<float>();
  for (const auto& p : this->param_groups_[0].params()) {
    TORCH_CHECK(p.grad().defined() && p.grad().data_ptr() == base + offset,
                "GraphSafeAdam: a parameter's gradient is not its slice of the flat gradients");
    offset += p.numel();
  }
  TORCH_CHECK(offset == gradients_.numel(), "GraphSafeAdam: the flat gradients are not the parameters'");
  const auto scalar = torch::TensorOptions(torch::kDouble).device(gradients_.device());
  step_ = torch::zeros({}, scalar);
  lr_ = torch::zeros({}, scalar);
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::bind_state() {
  using State = AdamStateOf<Base>;
  torch::NoGradGuard no_grad;
  const auto& flat = gradients_;
  exp_avg_ = torch::zeros_like(flat);
  exp_avg_sq_ = torch::zeros_like(flat);
  states_.clear();
  std::int64_t step = -1;
  std::int64_t offset = 0;
  for (const auto& p : this->param_groups_[0].params()) {
    const auto n = p.numel();
    auto m = exp_avg_.narrow(0, offset, n).view(p.sizes());
    auto v = exp_avg_sq_.narrow(0, offset, n).view(p.sizes());
    offset += n;
    const auto key = state_key(this->state_, p);
    auto found = this->state_.find(key);
    if (found == this->state_.end()) {  // before the first step: step 0, zero moments
      auto fresh = std::make_unique<State>();
      fresh->step(0);
      found = this->state_.emplace(key, std::move(fresh)).first;
    }
    auto& s = static_cast<State&>(*found->second);
    if (s.exp_avg().defined()) {  // a loaded (or LibTorch-stepped) state
      TORCH_CHECK(s.exp_avg().numel() == n && s.exp_avg_sq().numel() == n, "Adam state does not match its parameter");
      m.copy_(s.exp_avg().reshape(p.sizes()));
      v.copy_(s.exp_avg_sq().reshape(p.sizes()));
    }
    s.exp_avg(m);
    s.exp_avg_sq(v);
    TORCH_CHECK(step < 0 || step == s.step(), "GraphSafeAdam: parameters at different steps (", step, " and ", s.step(),
                ")");
    step = s.step();
    states_.push_back(&s);
  }
  step_.fill_(static_cast<double>(std::max<std::int64_t>(step, 0)));
  bound_ = true;
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::prepare() {
  if (!bound_) bind_state();
  lr_.fill_(static_cast<const Options&>(this->param_groups_[0].options()).lr());
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::update_on_device() {
  constexpr bool decoupled = std::is_same_v<Base, torch::optim::AdamW>;
  torch::NoGradGuard no_grad;
  const auto& options = static_cast<const Options&>(this->param_groups_[0].options());
  const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
  const double decay = options.weight_decay();
  const auto& params = this->param_groups_[0].params();
  const auto& g = gradients_;  // [N]
  if (clip_norm_ > 0) {
    // clip_grad_norm_: multiplied by max_norm / (norm + 1e-6) when that is below 1.
    g.mul_((clip_norm_ / (g.norm(2).to(torch::kDouble) + 1e-6)).clamp_max(1.0));
  }
  step_.add_(1);
  const auto bias_correction1 = 1 - torch::pow(beta1, step_);  // float64 scalars
  const auto bias_correction2 = 1 - torch::pow(beta2, step_);
  torch::Tensor p_flat;  // [N], the parameters' values, for weight decay
  if (decay != 0) {
    std::vector<torch::Tensor> rows;
    rows.reserve(params.size());
    for (const auto& p : params) rows.push_back(p.reshape({-1}));
    p_flat = torch::cat(rows);
  }
  const auto grad = !decoupled && decay != 0 ? g.add(p_flat, decay) : g;  // Adam's L2 term
  exp_avg_.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq_.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
  const auto denom = (exp_avg_sq_.sqrt() / bias_correction2.sqrt()).add_(options.eps());
  auto update = exp_avg_ / denom * (-lr_ / bias_correction1);        // [N]
  if (decoupled && decay != 0) update.sub_(p_flat * (lr_ * decay));  // AdamW: p * (1 - lr * decay) first
  std::vector<torch::Tensor> updates;
  updates.reserve(params.size());
  std::int64_t offset = 0;
  for (const auto& p : params) {
    updates.push_back(update.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
  at::_foreach_add_(params, updates);  // a few multi-tensor kernels on CUDA
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::count_step() {
  using State = AdamStateOf<Base>;
  for (auto* s : states_) {
    auto& state = static_cast<State&>(*s);
    state.step(state.step() + 1);
  }
}

template <typename Base, typename Options>
torch::Tensor GraphSafeAdamOf<Base, Options>::step(torch::optim::Optimizer::LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enable_grad(true);
    loss = closure();
  }
  prepare();
  update_on_device();
  count_step();
  return loss;
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::load(torch::serialize::InputArchive& archive) {
  Base::load(archive);
  bound_ = false;  // the loaded moments go into the flat ones at the next step
  states_.clear();
}

template class GraphSafeAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
template class GraphSafeAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;

}  // namespace dls::train
