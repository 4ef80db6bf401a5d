#include "dls/layers/attention.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"
#include "dls/layers/saved_tensors.h"
#include "dls/util/precision.h"

namespace dls {
namespace {

TransformerConfig config_for(Layout layout) {
  TransformerConfig config;
  config.layout(layout).embedding_size(16).num_heads(4).max_seq_length(6);
  return config;
}

class AttentionLayouts : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override { torch::manual_seed(7); }
};

TEST_P(AttentionLayouts, HeadParametersFollowDLStudio) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  // Trained as one fused weight and bias (plus W_O's two in the vaswani layout)...
  EXPECT_EQ(attention->named_parameters().size(), GetParam() == Layout::kVaswani ? 4u : 2u);
  // ...saved as DLStudio's H heads x (WQ, WK, WV) x (weight, bias), the same numbers in all.
  std::map<std::string, torch::Tensor> parameters;
  std::int64_t saved_numel = 0, trained_numel = 0;
  for (const auto& [name, tensor] : saved_parameters(*attention)) {
    parameters.emplace(name, tensor);
    saved_numel += tensor.numel();
  }
  for (const auto& p : attention->parameters()) trained_numel += p.numel();
  EXPECT_EQ(saved_numel, trained_numel);
  EXPECT_EQ(parameters.size(), GetParam() == Layout::kVaswani ? 26u : 24u);
  const auto& wq = parameters["attention_heads_arr.3.WQ.weight"];
  if (GetParam() == Layout::kDLStudio) {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({6 * 4, 6 * 4}));  // Linear(L*s, L*s)
  } else if (GetParam() == Layout::kPositionwise) {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({4, 4}));  // Linear(s, s)
  } else {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({4, 16}));  // Linear(M, s)
    EXPECT_EQ(parameters.count("W_O.weight"), 1u);
  }
}

TEST_P(AttentionLayouts, BatchedHeadsEqualPerHeadComputation) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  const auto x = torch::randn({3, 6, 16});
  torch::Tensor mask;
  if (GetParam() == Layout::kVaswani) {
    mask =
        key_padding_mask(torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}, {0, 0, 1, 1, 1, 1}}).to(torch::kBool));
  }
  torch::Tensor fast_w, slow_w;
  const auto fast = attention(x, mask, &fast_w);
  const auto slow = attention->forward_per_head(x, mask, &slow_w);
  EXPECT_EQ(fast.sizes(), x.sizes());  // output shape = input shape
  EXPECT_TRUE(torch::allclose(fast, slow, 1e-5, 1e-6)) << (fast - slow).abs().max();
  EXPECT_EQ(fast_w.sizes(), torch::IntArrayRef({3, 4, 6, 6}));
  EXPECT_TRUE(torch::allclose(fast_w, slow_w, 1e-5, 1e-6));
  // Attention weights are distributions over the keys.
  EXPECT_TRUE(torch::allclose(fast_w.sum(-1), torch::ones({3, 4, 6}), 1e-5, 1e-5));
}

TEST_P(AttentionLayouts, BatchedCrossAttentionEqualsPerHeadWithCopies) {
  const auto config = config_for(GetParam());
  CrossAttention attention(config);
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto x = torch::randn({3 * 2, 6, 16});  // three copy-major copies of a batch of two
  torch::Tensor mask;
  if (GetParam() == Layout::kVaswani) {
    mask = key_padding_mask(torch::tensor({{0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 1}}).to(torch::kBool));
  }
  torch::Tensor fast_w, slow_w;
  const auto fast = attention(x, encoder_out, mask, &fast_w);
  const auto slow = attention->forward_per_head(x, encoder_out, mask, &slow_w);
  EXPECT_EQ(fast.sizes(), x.sizes());
  EXPECT_TRUE(torch::allclose(fast, slow, 1e-5, 1e-6)) << (fast - slow).abs().max();
  EXPECT_TRUE(torch::allclose(fast_w, slow_w, 1e-5, 1e-6));
  if (GetParam() == Layout::kVaswani) {
    // Padded source positions get no attention at all.
    EXPECT_EQ(fast_w.select(0, 0).narrow(-1, 3, 3).abs().max().item<float>(), 0.0f);
    EXPECT_EQ(fast_w.select(0, 4 + 1).narrow(-1, 5, 1).abs().max().item<float>(), 0.0f);
  }
}

TEST_P(AttentionLayouts, GradientsReachEveryHead) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  attention(torch::randn({2, 6, 16})).pow(2).sum().backward();
  for (const auto& p : attention->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<float>(), 0.0f) << p.key();
  }
}

// Every parameter's gradient as autograd::grad hands it to the GPU's optimizer (no
// AccumulateGrad to copy it into the parameter's layout) comes in its parameter's own layout,
// equal to DLStudio's loop over heads: in fp32, and in float32 within bf16's rounding under
// bf16 autocast (the fused projections' custom backward casts back as autocast would).
TEST_P(AttentionLayouts, GradientsComeInTheParametersLayoutAsThePerHeadLoopsGiveThem) {
  const auto config = config_for(GetParam());
  SelfAttention self(config);
  CrossAttention cross(config);
  const auto x = torch::randn({3, 6, 16}), encoder_out = torch::randn({3, 6, 16});
  std::vector<std::string> names;
  std::vector<torch::Tensor> parameters;
  for (const auto& [prefix, module] : {std::pair<std::string, torch::nn::Module*>{"self.", self.ptr().get()},
                                       std::pair<std::string, torch::nn::Module*>{"cross.", cross.ptr().get()}}) {
    for (const auto& p : module->named_parameters()) {
      names.push_back(prefix + p.key());
      parameters.push_back(p.value());
    }
  }
  const auto gradients = [&](bool per_head) {
    const auto loss =
        per_head ? self->forward_per_head(x).pow(2).sum() + cross->forward_per_head(x, encoder_out).pow(2).sum()
                 : self(x).pow(2).sum() + cross(x, encoder_out).pow(2).sum();
    return torch::autograd::grad({loss}, parameters);
  };
  const auto reference = gradients(true);
  const auto fused = gradients(false);
  std::vector<torch::Tensor> bf16;
  {
    const util::AutocastScope autocast(util::autocast_for(util::Precision::kBf16, torch::Device(torch::kCPU)));
    bf16 = gradients(false);
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    EXPECT_TRUE(fused[i].is_contiguous()) << names[i] << " strides " << fused[i].strides();
    EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-4, 1e-5))
        << names[i] << ": " << (fused[i] - reference[i]).abs().max();
    EXPECT_EQ(bf16[i].scalar_type(), torch::kFloat) << names[i];
    EXPECT_TRUE(bf16[i].is_contiguous()) << names[i] << " strides " << bf16[i].strides();
    // bf16 keeps 8 bits of mantissa: relative to the gradient's size.
    EXPECT_LT((bf16[i] - reference[i]).norm().item<double>(), 3e-2 * reference[i].norm().item<double>()) << names[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, AttentionLayouts,
                         ::testing::Values(Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani),
                         [](const auto& info) { return to_string(info.param); });

TEST(Attention, DLStudioScalesAfterTheSoftmax) {
  // One head, hand-set projections: Z = softmax(QK^T) V / sqrt(s).
  auto config = config_for(Layout::kDLStudio);
  config.num_heads(1).embedding_size(4).max_seq_length(3);
  AttentionHead head(config);
  torch::NoGradGuard no_grad;
  for (auto* linear : {&head->WQ, &head->WK, &head->WV}) {
    (*linear)->weight.copy_(torch::eye(12));
    (*linear)->bias.zero_();
  }
  const auto x = torch::randn({1, 3, 4});
  const auto expected = torch::matmul(torch::softmax(torch::matmul(x, x.transpose(1, 2)), -1), x) / 2.0;
  EXPECT_TRUE(torch::allclose(head(x), expected, 1e-5, 1e-6));
}

TEST(Attention, VaswaniScalesBeforeTheSoftmax) {
  auto config = config_for(Layout::kVaswani);
  config.num_heads(1).embedding_size(4).max_seq_length(3);
  AttentionHead head(config);
  torch::NoGradGuard no_grad;
  for (auto* linear : {&head->WQ, &head->WK, &head->WV}) {
    (*linear)->weight.copy_(torch::eye(4));
    (*linear)->bias.zero_();
  }
  const auto x = torch::randn({1, 3, 4});
  const auto expected = torch::matmul(torch::softmax(torch::matmul(x, x.transpose(1, 2)) / 2.0, -1), x);
  EXPECT_TRUE(torch::allclose(head(x), expected, 1e-5, 1e-6));
}

TEST(Attention, CachedStepsEqualTheCausalPass) {
  auto config = config_for(Layout::kVaswani);
  SelfAttention attention(config);
  attention->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 5, 16});
  const auto full = attention(x, causal_mask(5, x.options()));
  KeyValueCache cache;
  std::vector<torch::Tensor> steps;
  // Two positions at once, then one at a time.
  steps.push_back(attention->forward_cached(x.narrow(1, 0, 2), cache, 6));
  for (std::int64_t t = 2; t < 5; ++t) {
    steps.push_back(attention->forward_cached(x.narrow(1, t, 1), cache, 6));
  }
  EXPECT_EQ(cache.length, 5);
  EXPECT_TRUE(torch::allclose(torch::cat(steps, 1), full, 1e-5, 1e-6));
  EXPECT_THROW(attention->forward_cached(x.narrow(1, 0, 2), cache, 6), c10::Error);
}

// The one-position step kernels (attention_step.h) against the general operators: the same
// outputs and caches, one position at a time from the first, with rows reordered and
// repeated between steps as beam search does.
// The fused projections start where DLStudio's per-head Linear layers would, made one after
// another with the same seed (head by head: WQ, WK, WV); a head's projection is a view, so
// that writing it changes the layer, and forward_per_head() (the plain loop) reads it.
TEST(Attention, FusedHeadsStartAsDLStudiosPerHeadLayers) {
  for (const auto layout : {Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani}) {
    const auto config = config_for(layout);
    torch::manual_seed(3);
    SelfAttention self(config);
    torch::manual_seed(3);
    CrossAttention cross(config);
    torch::manual_seed(3);
    std::vector<AttentionHead> heads;
    for (std::int64_t h = 0; h < config.num_heads(); ++h) heads.emplace_back(config);
    for (std::int64_t h = 0; h < config.num_heads(); ++h) {
      const torch::nn::Linear* linear[3] = {&heads[h]->WQ, &heads[h]->WK, &heads[h]->WV};
      for (const auto part : {Projection::kQ, Projection::kK, Projection::kV}) {
        const auto& reference = *linear[static_cast<int>(part)];
        for (const auto& fused : {self->head_projection(h, part), cross->head_projection(h, part)}) {
          EXPECT_TRUE(torch::equal(fused.weight, reference->weight)) << to_string(layout) << " head " << h;
          EXPECT_TRUE(torch::equal(fused.bias, reference->bias)) << to_string(layout) << " head " << h;
        }
      }
    }
  }
  auto config = config_for(Layout::kVaswani);
  SelfAttention self(config);
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 5, 16});
  const auto before = self(x);
  self->head_projection(2, Projection::kV).weight.mul_(2);
  EXPECT_FALSE(torch::allclose(self(x), before));
  EXPECT_TRUE(torch::allclose(self(x), self->forward_per_head(x), 1e-5, 1e-6));
}

TEST(Attention, SelfAttentionStepKernelsEqualTheGeneralOperators) {
  SelfAttention attention(config_for(Layout::kVaswani));
  attention->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({3, 5, 16});
  const auto reorder = torch::tensor({2, 0, 0}, torch::kLong);
  std::vector<torch::Tensor> outputs[2];
  KeyValueCache caches[2];
  for (const bool kernels : {true, false}) {
    set_attention_step_kernels_enabled(kernels);
    auto& cache = caches[kernels ? 0 : 1];
    auto rows = x;
    for (std::int64_t t = 0; t < 5; ++t) {
      if (t == 3) {
        cache.reorder(reorder);
        rows = rows.index_select(0, reorder);
      }
      outputs[kernels ? 0 : 1].push_back(attention->forward_cached(rows.narrow(1, t, 1), cache, 6));
    }
  }
  set_attention_step_kernels_enabled(true);
  for (std::size_t t = 0; t < 5; ++t) EXPECT_TRUE(torch::allclose(outputs[0][t], outputs[1][t], 1e-5, 1e-6)) << t;
  EXPECT_TRUE(torch::allclose(caches[0].keys, caches[1].keys, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(caches[0].values, caches[1].values, 1e-5, 1e-6));
}

TEST(Attention, CrossAttentionStepKernelEqualsTheGeneralOperatorsWithPadding) {
  CrossAttention attention(config_for(Layout::kVaswani));
  attention->eval();
  torch::NoGradGuard no_grad;
  const auto memory = attention->project_memory(torch::randn({3, 5, 16}));
  const auto padding = torch::tensor({0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}, torch::kBool).view({3, 5});
  const auto mask = key_padding_mask(padding);  // [3, 1, 1, 5]
  const auto x = torch::randn({3, 1, 16});
  const auto fast = attention->attend(x, memory, mask);
  set_attention_step_kernels_enabled(false);
  const auto plain = attention->attend(x, memory, mask);
  set_attention_step_kernels_enabled(true);
  EXPECT_TRUE(torch::allclose(fast, plain, 1e-5, 1e-6));
  // Asking for the weights takes the general path, which returns them.
  torch::Tensor weights;
  EXPECT_TRUE(torch::allclose(attention->attend(x, memory, mask, &weights), plain, 1e-5, 1e-6));
  EXPECT_EQ(weights.sizes(), (std::vector<std::int64_t>{3, 4, 1, 5}));
  // Padded positions get no weight: row 0's last two, row 2's last three.
  EXPECT_EQ(weights.select(0, 0).narrow(-1, 3, 2).max().item<float>(), 0.0f);
  EXPECT_EQ(weights.select(0, 2).narrow(-1, 2, 3).max().item<float>(), 0.0f);
}

// The vaswani layout's self-attention is the standard one: with the heads' WQ/WK/WV stacked
// into in_proj_weight (head h's rows h*s .. h*s+s-1 of each third) and W_O as out_proj,
// torch::nn::MultiheadAttention computes the same values and the same per-head weights,
// with and without a causal mask.
TEST(SelfAttention, VaswaniEqualsTorchMultiheadAttention) {
  torch::manual_seed(11);
  const std::int64_t M = 16, H = 4, L = 6, B = 3;
  auto config = config_for(Layout::kVaswani);
  config.dropout(0.0);
  SelfAttention attention(config);
  torch::nn::MultiheadAttention reference(torch::nn::MultiheadAttentionOptions(M, H));
  {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> weights, biases;
    for (const auto part : {Projection::kQ, Projection::kK, Projection::kV}) {
      for (std::int64_t h = 0; h < H; ++h) {
        weights.push_back(attention->head_projection(h, part).weight);
        biases.push_back(attention->head_projection(h, part).bias);
      }
    }
    reference->in_proj_weight.copy_(torch::cat(weights, 0));  // [3M, M]
    reference->in_proj_bias.copy_(torch::cat(biases, 0));
    reference->out_proj->weight.copy_(attention->W_O->weight);
    reference->out_proj->bias.copy_(attention->W_O->bias);
  }
  const auto x = torch::randn({B, L, M});
  for (const bool causal : {false, true}) {
    const auto mask = causal ? causal_mask(L, x.options()) : torch::Tensor();  // [1, 1, L, L] or none
    torch::Tensor ours_w;
    const auto ours = attention->forward(x, mask, &ours_w);  // [B, L, M], [B, H, L, L]
    const auto xt = x.transpose(0, 1);                       // MultiheadAttention wants [L, B, M]
    const auto [theirs, theirs_w] =
        reference->forward(xt, xt, xt, {}, true, causal ? mask.view({L, L}) : torch::Tensor(),
                           /*average_attn_weights=*/false);
    EXPECT_TRUE(torch::allclose(ours, theirs.transpose(0, 1), 1e-5, 1e-6)) << causal;
    ASSERT_EQ(theirs_w.sizes(), ours_w.sizes());
    EXPECT_TRUE(torch::allclose(ours_w, theirs_w, 1e-5, 1e-6)) << causal;
  }
}

}  // namespace
}  // namespace dls
