#include "dls/train/optim/graph_safe_adam.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_set>

#include <torch/torch.h>
#include <torch/version.h>
#include <spdlog/spdlog.h>

#include "dls/util/flat_views.h"
#include "train/optim/adam_archive.h"
#include "train/optim/adam_state.h"

// LibTorch >= 2.4: ATen's fused Adam(W) with the learning rate in a device tensor, one pass
// over p, g, m and v (7 N-float tensors read or written, where the operators below move 18):
// what a captured step replays for the lecture's 282 M parameters. Its CPU kernel serves the
// same program on the CPU (and lets a CPU machine with LibTorch 2.x test it). LibTorch 1.13
// has no tensor-rate overload; there the operators below run.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#include <ATen/ops/_fused_adam.h>
#include <ATen/ops/_fused_adamw.h>
#define DLS_ATEN_FUSED_ADAM 1
#else
#define DLS_ATEN_FUSED_ADAM 0
#endif

namespace dls::train {

namespace {
// Each parameter's slice of `flat` [N], laid out as the gradients are (util/flat_views.h);
// none for an undefined `flat` (a buffer the step does not use).
std::vector<torch::Tensor> per_parameter_views(const torch::Tensor& flat, const std::vector<torch::Tensor>& params) {
  return flat.defined() ? util::flat_views(flat, params) : std::vector<torch::Tensor>{};
}

// Gradients as backward handed them over, as the update reads them: each dense and laid out
// as its (contiguous) parameter -- a transposed one copied, as AccumulateGrad would -- each in
// memory of its own, and zeros for a parameter backward did not reach. Backward may hand one
// tensor to two parameters (an addition passes its gradient to both inputs): ATen's fused
// kernel writes each clipped gradient back, and shared memory would be clipped twice.
std::vector<torch::Tensor> dense_gradients(const std::vector<torch::Tensor>& gradients,
                                           const std::vector<torch::Tensor>& params) {
  TORCH_CHECK(gradients.size() == params.size(), "GraphSafeAdam: ", gradients.size(), " gradients for ", params.size(),
              " parameters");
  std::vector<torch::Tensor> dense;
  dense.reserve(params.size());
  std::unordered_set<const c10::StorageImpl*> storages;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& g = gradients[i];
    if (!g.defined()) {
      dense.push_back(torch::zeros_like(params[i]));
      continue;
    }
    TORCH_CHECK(g.sizes() == params[i].sizes() && g.scalar_type() == params[i].scalar_type() &&
                    g.device() == params[i].device(),
                "GraphSafeAdam: gradient ", i, " is not shaped, typed and placed as its parameter");
    const bool shared = !storages.insert(g.storage().unsafeGetStorageImpl()).second;
    dense.push_back(shared ? g.clone(torch::MemoryFormat::Contiguous) : g.contiguous());
  }
  return dense;
}

#if DLS_ATEN_FUSED_ADAM
// Clipping as the divisor ATen's fused kernel applies to every gradient it reads (its
// grad_scale): max(1, (norm + 1e-6) / max_norm), the inverse of clip_grad_norm_'s factor
// min(1, max_norm / (norm + 1e-6)); float32 [] on the norm's device.
torch::Tensor clip_divisor(const torch::Tensor& norm, double max_norm) {
  return ((norm.to(torch::kDouble) + 1e-6) / max_norm).clamp_min(1.0).to(torch::kFloat);
}
#endif
}  // namespace

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
  const auto& params = this->param_groups_[0].params();
  moments_ = per_parameter_views(exp_avg_, params);
  second_moments_ = per_parameter_views(exp_avg_sq_, params);
  gradient_views_.clear();
  flat_parameters_.clear();
  states_.clear();
  std::int64_t step = -1;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    auto& m = moments_[i];
    auto& v = second_moments_[i];
    const auto key = state_key(this->state_, p);
    auto found = this->state_.find(key);
    if (found == this->state_.end()) {  // before the first step: step 0, zero moments
      auto fresh = std::make_unique<State>();
      fresh->step(0);
      found = this->state_.emplace(key, std::move(fresh)).first;
    }
    auto& s = static_cast<State&>(*found->second);
    if (s.exp_avg().defined()) {  // a loaded (or LibTorch-stepped) state
      TORCH_CHECK(s.exp_avg().numel() == p.numel() && s.exp_avg_sq().numel() == p.numel(),
                  "Adam state does not match its parameter");
      m.copy_(s.exp_avg().reshape(p.sizes()));
      v.copy_(s.exp_avg_sq().reshape(p.sizes()));
    }
    s.exp_avg(m);
    s.exp_avg_sq(v);
    TORCH_CHECK(step < 0 || step == s.step(), "GraphSafeAdam: parameters at different steps (", step, " and ", s.step(),
                ")");
    step = s.step();
    states_.push_back(&s);
    gradient_views_.push_back(p.grad());
    flat_parameters_.push_back(p.view({-1}));
  }
  step_.fill_(static_cast<double>(std::max<std::int64_t>(step, 0)));
  // ATen's fused kernel (above), unless it refused a step; it needs no buffers of ours.
  aten_fused_ = DLS_ATEN_FUSED_ADAM && (flat.is_cuda() || flat.is_cpu()) && !aten_fused_refused_;
  make_update_buffers();
  bound_ = true;
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::make_update_buffers() {
  const auto& flat = gradients_;
  const auto& options = static_cast<const Options&>(this->param_groups_[0].options());
  const bool decoupled_decay = std::is_same_v<Base, torch::optim::AdamW> && options.weight_decay() != 0;
  denominator_ = aten_fused_ ? torch::Tensor() : torch::empty_like(flat);
  decayed_ = decoupled_decay && !aten_fused_ ? torch::empty_like(flat) : torch::Tensor();
  denominators_ = per_parameter_views(denominator_, this->param_groups_[0].params());
  decrements_ = per_parameter_views(decayed_, this->param_groups_[0].params());
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::prepare() {
  if (!bound_) bind_state();
  lr_.fill_(static_cast<const Options&>(this->param_groups_[0].options()).lr());
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::update_on_device() {
  update(gradient_views_, /*in_flat=*/true);
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::update_on_device(const std::vector<torch::Tensor>& gradients) {
  update(dense_gradients(gradients, this->param_groups_[0].params()), /*in_flat=*/false);
}

template <typename Base, typename Options>
void GraphSafeAdamOf<Base, Options>::update(const std::vector<torch::Tensor>& gradients, bool in_flat) {
  constexpr bool decoupled = std::is_same_v<Base, torch::optim::AdamW>;
  torch::NoGradGuard no_grad;
  const auto& options = static_cast<const Options&>(this->param_groups_[0].options());
  const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
  const double decay = options.weight_decay();
  const auto& params = this->param_groups_[0].params();
  const auto& g = gradients_;  // [N]
  step_.add_(1);
#if DLS_ATEN_FUSED_ADAM
  if (aten_fused_) {
    try {
      const auto lr = lr_.to(torch::kFloat);  // the kernels read float32 scalars
      const std::vector<torch::Tensor> steps(params.size(), step_.to(torch::kFloat));
      // clip_grad_norm_'s factor, applied by the kernel as it reads each gradient (and writes it back).
      c10::optional<torch::Tensor> divisor;
      if (clip_norm_ > 0) {
        divisor = clip_divisor(in_flat ? g.norm(2) : torch::stack(at::_foreach_norm(gradients)).norm(2), clip_norm_);
      }
      if (decoupled) {
        at::_fused_adamw_(params, gradients, moments_, second_moments_, {}, steps, lr, beta1, beta2, decay,
                          options.eps(), /*amsgrad=*/false, /*maximize=*/false, divisor, /*found_inf=*/{});
      } else {
        at::_fused_adam_(params, gradients, moments_, second_moments_, {}, steps, lr, beta1, beta2, decay,
                         options.eps(), /*amsgrad=*/false, /*maximize=*/false, divisor, /*found_inf=*/{});
      }
      return;
    } catch (const c10::Error& error) {
      // CUDA's kernel checks every tensor before it writes; the CPU's goes tensor by tensor,
      // but float32 parameters with gradients laid out as they are (dense_gradients) pass its
      // checks. The operators take this step.
      const std::string what = error.what();
      spdlog::warn("graph-safe Adam: ATen's fused kernel refused the step ({}); the elementwise operators take it",
                   what.substr(0, what.find('\n')));
      aten_fused_refused_ = true;
      aten_fused_ = false;
      make_update_buffers();
    }
  }
#endif
  if (!in_flat) {  // into the flat tensor the operators below work on: one pass
    std::vector<torch::Tensor> flat_parts;
    flat_parts.reserve(gradients.size());
    for (const auto& gradient : gradients) flat_parts.push_back(gradient.view({-1}));
    torch::cat_out(gradients_, flat_parts);
  }
  if (clip_norm_ > 0) {
    // clip_grad_norm_: multiplied by max_norm / (norm + 1e-6) when that is below 1.
    g.mul_((clip_norm_ / (g.norm(2).to(torch::kDouble) + 1e-6)).clamp_max(1.0));
  }
  const auto bias_correction1 = 1 - torch::pow(beta1, step_);  // float64 scalars
  const auto bias_correction2 = 1 - torch::pow(beta2, step_);
  // What decides the step's time on a large model is the memory it moves: passes over [N]
  // tensors, counted below as tensors read + written (each N floats). 18 without weight decay
  // and clipping (the lecture's Adam), where LibTorch's sequence of operators takes 24.
  if (decay != 0 && !decoupled) at::_foreach_add_(gradient_views_, params, decay);  // Adam's L2 term into g: 3
  exp_avg_.lerp_(g, 1 - beta1);                                                     // m = b1 m + (1 - b1) g: 3
  exp_avg_sq_.mul_(beta2).addcmul_(g, g, 1 - beta2);                                // v = b2 v + (1 - b2) g^2: 2 + 3
  auto& denom = denominator_;
  torch::sqrt_out(denom, exp_avg_sq_);  // 2
  at::addcmul_out(denom, torch::full({}, options.eps(), denom.options()), denom,
                  bias_correction2.rsqrt().to(torch::kFloat));  // sqrt(v) / sqrt(bc2) + eps >= eps: 2
  // The step size -lr / bc1 folded into the denominator, so that one addcdiv updates the
  // parameters; with lr = 0 the denominator is -inf and the update -0 (the denominator is
  // at least eps first, so never 0 * inf).
  denom.mul_((bias_correction1 / -lr_).to(torch::kFloat));  // 2
  if (decoupled && decay != 0) {                            // AdamW: p * (1 - lr * decay), before the update
    torch::cat_out(decayed_, flat_parameters_).mul_((lr_ * -decay).to(torch::kFloat));  // 2 + 2
    at::_foreach_add_(params, decrements_);                                             // 3
  }
  at::_foreach_addcdiv_(params, moments_, denominators_, 1.0);  // p += m / denom: 4; multi-tensor kernels on CUDA
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
  load_adam_archive<Base>(archive, *this);  // by the saved keys as strings (adam_archive.h)
  bound_ = false;                           // the loaded moments go into the flat ones at the next step
  states_.clear();
}

template class GraphSafeAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
template class GraphSafeAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;

}  // namespace dls::train
