// Attention as one ATen operator: at::scaled_dot_product_attention (LibTorch >= 2.1).
// On a GPU it runs as one fused kernel forward and one backward (which kernel is LibTorch's
// choice: memory-efficient attention, fp32 and masks included; flash attention only in bf16 or
// fp16 without a mask; the math fallback where neither applies), where the plain path
// (attention_core.cpp's scaled_attention) dispatches a product, a scale, a mask addition, a
// softmax, a dropout and a product, each its own kernel and each keeping its [..., Lq, Lk]
// result for backward.
#pragma once

#include <torch/torch.h>

namespace dls {

// Whether this build's LibTorch has at::scaled_dot_product_attention with a `scale`
// argument (2.1 and later; Debian 12's 1.13 has not).
bool fused_attention_compiled();

// Where scaled_attention takes the fused operator (where it is compiled): kGpu by default.
// On the CPU the plain path stays unless asked (kEverywhere: the equivalence tests on the
// CPU): there its products are small_batched_matmul's kernels, and LibTorch 2.6's CPU
// operator measured no faster (bench/PERFORMANCE.md, "Attention as one operator").
// kNowhere: every layer on the plain path (dls_bench --attention plain; fused: kEverywhere). Process-wide.
enum class FusedAttentionUse { kNowhere, kGpu, kEverywhere };
void set_fused_attention_use(FusedAttentionUse use);

// Whether scaled_attention takes the fused operator on `device`: compiled, and the device
// among those set_fused_attention_use allows.
bool fused_attention_on(c10::Device device);

// softmax(q k^T * scale + mask) v with dropout `dropout_p` on the weights, as one operator:
// q [..., Lq, s], k and v [..., Lk, s], mask (additive, optional) broadcastable to
// [..., Lq, Lk]. Returns [..., Lq, s]. Only where fused_attention_compiled().
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const torch::Tensor& mask, double dropout_p, double scale);

}  // namespace dls
