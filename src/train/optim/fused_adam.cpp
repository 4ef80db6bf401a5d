#include "dls/train/optim/fused_adam.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <torch/torch.h>

#include "dls/train/optim/clip_gradients.h"
#include "dls/util/parallel_chunks.h"
#include "train/optim/adam_archive.h"
#include "train/optim/adam_state.h"

namespace dls::train {

namespace {

struct AdamScalars {
  float grad_scale;  // the clipping factor (1: none)
  float beta1, one_minus_beta1, beta2, one_minus_beta2;
  float sqrt_bias_correction2, eps, step_size;
  float l2;     // Adam: grad += l2 * p
  float decay;  // AdamW: p *= decay before the update
};

// Elements [begin, end) of the update: the same arithmetic, in the same order and float32
// rounding, as LibTorch's sequence of operators (mul_, add_, mul_, addcmul_, sqrt, div,
// add_, addcdiv_), up to the fused multiply-adds its vectorised kernels may use. Four
// elements at a time with SSE (GCC does not vectorise the scalar loop: std::sqrt may set
// errno, and an optimize("no-math-errno") attribute does not change that); the vector and
// the scalar path round every operation alike, so the result does not depend on where a
// thread's span begins (FusedAdam.ThreadCountDoesNotChangeTheResult).
void adam_update_range(float* p, const float* g, float* m, float* v, std::int64_t begin, std::int64_t end,
                       const AdamScalars& c) {
  std::int64_t i = begin;
#if defined(__SSE2__)
  const __m128 grad_scale = _mm_set1_ps(c.grad_scale);
  const __m128 decay = _mm_set1_ps(c.decay), l2 = _mm_set1_ps(c.l2);
  const __m128 beta1 = _mm_set1_ps(c.beta1), one_minus_beta1 = _mm_set1_ps(c.one_minus_beta1);
  const __m128 beta2 = _mm_set1_ps(c.beta2), one_minus_beta2 = _mm_set1_ps(c.one_minus_beta2);
  const __m128 sqrt_bias_correction2 = _mm_set1_ps(c.sqrt_bias_correction2);
  const __m128 eps = _mm_set1_ps(c.eps), step_size = _mm_set1_ps(c.step_size);
  for (; i + 4 <= end; i += 4) {
    const __m128 param = _mm_mul_ps(_mm_loadu_ps(p + i), decay);
    const __m128 grad = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(g + i), grad_scale), _mm_mul_ps(l2, param));
    const __m128 mi = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m + i), beta1), _mm_mul_ps(one_minus_beta1, grad));
    const __m128 vi =
        _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(v + i), beta2), _mm_mul_ps(one_minus_beta2, _mm_mul_ps(grad, grad)));
    const __m128 denom = _mm_add_ps(_mm_div_ps(_mm_sqrt_ps(vi), sqrt_bias_correction2), eps);
    _mm_storeu_ps(m + i, mi);
    _mm_storeu_ps(v + i, vi);
    _mm_storeu_ps(p + i, _mm_sub_ps(param, _mm_mul_ps(step_size, _mm_div_ps(mi, denom))));
  }
#endif
  for (; i < end; ++i) {
    const float param = p[i] * c.decay;
    const float grad = g[i] * c.grad_scale + c.l2 * param;
    const float mi = m[i] * c.beta1 + c.one_minus_beta1 * grad;
    const float vi = v[i] * c.beta2 + c.one_minus_beta2 * (grad * grad);
    const float denom = std::sqrt(vi) / c.sqrt_bias_correction2 + c.eps;
    m[i] = mi;
    v[i] = vi;
    p[i] = param - c.step_size * (mi / denom);
  }
}

bool fusable(const torch::Tensor& p) {
  const auto& g = p.grad();
  return p.device().is_cpu() && p.scalar_type() == torch::kFloat32 && p.is_contiguous() &&
         g.layout() == torch::kStrided && g.scalar_type() == torch::kFloat32 && g.is_contiguous();
}

// Whether every parameter with a gradient can take the fused update.
template <typename Options>
bool all_fusable(const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  for (const auto& group : groups) {
    if (static_cast<const Options&>(group.options()).amsgrad()) return false;
    for (const auto& p : group.params()) {
      if (p.grad().defined() && !fusable(p)) return false;
    }
  }
  return true;
}

// One parameter's update: its tensors and scalars.
struct AdamWork {
  float *p, *m, *v;
  const float* g;
  AdamScalars scalars;
};

// Below ~64k elements a thread costs more than it saves.
constexpr std::int64_t kElementsPerThread = 1 << 16;

int thread_count(std::int64_t elements, int threads) {
  return static_cast<int>(std::min<std::int64_t>(threads, elements / kElementsPerThread + 1));
}

// The 2-norm of all the gradients together, as the elements [offsets[i], offsets[i + 1]) of
// work[i].g. The sum of squares is taken in double over fixed blocks of kElementsPerThread
// elements and the blocks' sums added in order, so that the thread count does not change a bit.
double global_gradient_norm(const std::vector<AdamWork>& work, const std::vector<std::int64_t>& offsets, int threads) {
  const std::int64_t total = offsets.back();
  const std::int64_t blocks = (total + kElementsPerThread - 1) / kElementsPerThread;
  std::vector<double> block_sums(static_cast<std::size_t>(blocks), 0.0);
  util::for_each_chunk(blocks, thread_count(total, threads), [&](int, std::int64_t first, std::int64_t last) {
    for (std::int64_t b = first; b < last; ++b) {
      const std::int64_t begin = b * kElementsPerThread, end = std::min(total, begin + kElementsPerThread);
      auto i = static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1);
      double sum = 0;
      for (; i < work.size() && offsets[i] < end; ++i) {
        const float* g = work[i].g;
        const std::int64_t to = std::min(end, offsets[i + 1]) - offsets[i];
        for (std::int64_t k = std::max(begin, offsets[i]) - offsets[i]; k < to; ++k) {
          sum += static_cast<double>(g[k]) * static_cast<double>(g[k]);
        }
      }
      block_sums[static_cast<std::size_t>(b)] = sum;
    }
  });
  double sum = 0;
  for (const double s : block_sums) sum += s;
  return std::sqrt(sum);
}

// The fused step for both optimizers; decoupled selects AdamW's weight decay; clip_norm > 0
// clips the gradients' global norm first. The elements of all parameters are cut into
// `threads` equal spans, each updated on a thread of its own (util::for_each_chunk: no
// OpenMP team, which the data-parallel trainers keep at one thread around their steps).
template <typename Options, typename ParamState, typename StateMap>
void fused_step(std::vector<torch::optim::OptimizerParamGroup>& groups, StateMap& state, bool decoupled, int threads,
                double clip_norm) {
  torch::NoGradGuard no_grad;
  std::vector<AdamWork> work;
  std::vector<std::int64_t> offsets{0};  // work[i] covers [offsets[i], offsets[i + 1])
  for (auto& group : groups) {
    const auto& options = static_cast<const Options&>(group.options());
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const auto key = state_key(state, p);
      auto found = state.find(key);
      if (found == state.end()) {
        auto fresh = std::make_unique<ParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        found = state.emplace(key, std::move(fresh)).first;
      }
      auto& s = static_cast<ParamState&>(*found->second);
      TORCH_CHECK(s.exp_avg().is_contiguous() && s.exp_avg_sq().is_contiguous() && s.exp_avg().numel() == p.numel() &&
                      s.exp_avg_sq().numel() == p.numel(),
                  "Adam state does not match its parameter");
      s.step(s.step() + 1);
      const double bias_correction1 = 1 - std::pow(beta1, s.step());
      const double bias_correction2 = 1 - std::pow(beta2, s.step());
      AdamScalars c{};
      c.grad_scale = 1.0F;
      c.beta1 = static_cast<float>(beta1);
      c.one_minus_beta1 = static_cast<float>(1 - beta1);
      c.beta2 = static_cast<float>(beta2);
      c.one_minus_beta2 = static_cast<float>(1 - beta2);
      c.sqrt_bias_correction2 = static_cast<float>(std::sqrt(bias_correction2));
      c.eps = static_cast<float>(options.eps());
      c.step_size = static_cast<float>(options.lr() / bias_correction1);
      c.l2 = decoupled ? 0.0F : static_cast<float>(options.weight_decay());
      c.decay = decoupled ? static_cast<float>(1 - options.lr() * options.weight_decay()) : 1.0F;
      const torch::Tensor& exp_avg = s.exp_avg();
      const torch::Tensor& exp_avg_sq = s.exp_avg_sq();
      work.push_back({p.data_ptr<float>(), exp_avg.data_ptr<float>(), exp_avg_sq.data_ptr<float>(),
                      p.grad().data_ptr<float>(), c});
      // Written through its raw pointer below: moved by hand, as an in-place operator would,
      // so that what keys on the version (int8_linear.h's quantized weights) sees the change.
      p.unsafeGetTensorImpl()->bump_version();
      offsets.push_back(offsets.back() + p.numel());
    }
  }
  const std::int64_t total = offsets.back();
  if (clip_norm > 0 && !work.empty()) {
    // clip_grad_norm_'s factor; the update multiplies each gradient by it as it reads it.
    const auto scale =
        static_cast<float>(std::min(1.0, clip_norm / (global_gradient_norm(work, offsets, threads) + 1e-6)));
    for (auto& w : work) w.scalars.grad_scale = scale;
  }
  util::for_each_chunk(total, thread_count(total, threads), [&](int, std::int64_t begin, std::int64_t end) {
    // The first parameter that overlaps [begin, end), then on through the span.
    auto i = static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1);
    for (; i < work.size() && offsets[i] < end; ++i) {
      const auto from = std::max(begin, offsets[i]) - offsets[i];
      const auto to = std::min(end, offsets[i + 1]) - offsets[i];
      const auto& w = work[i];
      adam_update_range(w.p, w.g, w.m, w.v, from, to, w.scalars);
    }
  });
}

// The closure's loss (undefined without one), computed with gradients on as Optimizer::step does.
torch::Tensor evaluate_closure(const torch::optim::Optimizer::LossClosure& closure) {
  if (!closure) return {};
  torch::AutoGradMode enable_grad(true);
  return closure();
}

}  // namespace

template <typename Base, typename Options>
torch::Tensor ClippingAdamOf<Base, Options>::step(torch::optim::Optimizer::LossClosure closure) {
  auto loss = evaluate_closure(closure);
  if (clip_norm_ > 0) clip_gradients(this->param_groups_, clip_norm_);
  Base::step();
  return loss;
}

template <typename Base, typename Options>
torch::Tensor FusedAdamOf<Base, Options>::step(torch::optim::Optimizer::LossClosure closure) {
  if (!all_fusable<Options>(this->param_groups_)) return ClippingAdamOf<Base, Options>::step(closure);
  auto loss = evaluate_closure(closure);
  constexpr bool decoupled = std::is_same_v<Base, torch::optim::AdamW>;
  using ParamState = AdamStateOf<Base>;
  fused_step<Options, ParamState>(this->param_groups_, this->state_, decoupled, threads_, this->clip_norm_);
  return loss;
}

template <typename Base, typename Options>
void ClippingAdamOf<Base, Options>::load(torch::serialize::InputArchive& archive) {
  load_adam_archive<Base>(archive, *this);
}

template class ClippingAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
template class ClippingAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;
template class FusedAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
template class FusedAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;

}  // namespace dls::train
