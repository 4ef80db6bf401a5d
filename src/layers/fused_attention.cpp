#include "dls/layers/fused_attention.h"

#include <atomic>

#include <torch/version.h>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define DLS_HAS_FUSED_ATTENTION 1
#else
#define DLS_HAS_FUSED_ATTENTION 0
#endif

namespace dls {

namespace {

std::atomic<FusedAttentionUse> g_use{FusedAttentionUse::kGpu};

}  // namespace

bool fused_attention_compiled() { return DLS_HAS_FUSED_ATTENTION != 0; }

void set_fused_attention_use(FusedAttentionUse use) { g_use = use; }

bool fused_attention_on(c10::Device device) {
  const FusedAttentionUse use = g_use;
  return fused_attention_compiled() &&
         (use == FusedAttentionUse::kEverywhere || (use == FusedAttentionUse::kGpu && device.is_cuda()));
}

torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& mask, double dropout_p, double scale) {
#if DLS_HAS_FUSED_ATTENTION
  if (!mask.defined()) return at::scaled_dot_product_attention(q, k, v, {}, dropout_p, /*is_causal=*/false, scale);
  // The additive mask in the query's type. Under bf16 autocast LibTorch 2.6 also took the
  // float32 mask as it is (FusedAttention.Bf16AutocastWithAMaskFollowsThePlainPath passes
  // without this); the conversion is for a query of another type outside autocast.
  return at::scaled_dot_product_attention(q, k, v, mask.to(q.scalar_type()), dropout_p, /*is_causal=*/false, scale);
#else
  (void)q, (void)k, (void)v, (void)mask, (void)dropout_p, (void)scale;
  TORCH_CHECK(false, "fused attention needs LibTorch 2.1 or later (this is ", TORCH_VERSION, ")");
#endif
}

}  // namespace dls
