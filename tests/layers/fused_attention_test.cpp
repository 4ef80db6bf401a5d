// Attention as one ATen operator (fused_attention.h) equals the plain path: outputs and
// gradients of self- and cross-attention in every layout, with and without masks, on the CPU
// and on a GPU when one is visible; dropout with the plain path's spread; a short training run
// step for step. LibTorch 1.13 (Debian 12) has no such operator: there only the refusal runs.
#include "dls/layers/fused_attention.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "dls/layers/feed_forward.h"
#include "dls/util/operator_count.h"
#include "dls/util/precision.h"
#include "support/fused_attention_use.h"
#include "support/metrics_steps.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls {
namespace fused_attention_test {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_FUSED_ATTENTION() \
  if (!fused_attention_compiled())     \
  GTEST_SKIP() << "this LibTorch (" TORCH_VERSION ") has no scaled_dot_product_attention with a scale (2.1 and later)"

using test::FusedAttentionUseScope;

std::vector<c10::Device> fused_devices() {
  std::vector<c10::Device> devices{torch::kCPU};
  if (torch::cuda::is_available()) devices.emplace_back(torch::kCUDA);
  return devices;
}

// fp32 on the CPU: the fused kernel adds in another order (measured below 1e-6); on a GPU its
// kernels keep fp32 but tile differently.
double fused_tolerance(c10::Device device) { return device.is_cuda() ? 2e-4 : 1e-5; }

TransformerConfig fused_config(Layout layout) {
  TransformerConfig config;
  config.layout(layout).embedding_size(32).num_heads(4).max_seq_length(6);
  return config;
}

// The masks the models pass: none, causal [1, 1, L, L], key padding [B, 1, 1, L] (rows 0 and
// 2 padded after 4 positions). DLStudio's layouts order heads first ([H, B, L, L] scores), so
// they take the causal one only, as their decoders do.
std::vector<std::pair<std::string, torch::Tensor>> fused_masks(Layout layout, std::int64_t batch, std::int64_t length,
                                                               c10::Device device) {
  std::vector<std::pair<std::string, torch::Tensor>> masks;
  masks.emplace_back("none", torch::Tensor());
  masks.emplace_back("causal", causal_mask(length, torch::TensorOptions(torch::kFloat).device(device)));
  if (layout == Layout::kVaswani) {
    auto padding = torch::zeros({batch, length}, torch::kBool);
    padding.index_put_({0, torch::indexing::Slice(4)}, true);
    padding.index_put_({2, torch::indexing::Slice(4)}, true);
    masks.emplace_back("key padding", key_padding_mask(padding.to(device)));
  }
  return masks;
}

// The fused attention operators `fn` dispatches (at::scaled_dot_product_attention).
std::atomic<long> g_fused_calls{0};
long fused_attention_calls(const std::function<void()>& fn) {
  g_fused_calls = 0;
  util::with_global_callback(
      at::RecordFunctionCallback([](const at::RecordFunction& record) -> std::unique_ptr<at::ObserverContext> {
        if (std::strcmp(record.name(), "aten::scaled_dot_product_attention") == 0) ++g_fused_calls;
        return nullptr;
      }).scopes({at::RecordScope::FUNCTION}),
      fn);
  return g_fused_calls.load();
}

struct AttentionRun {
  torch::Tensor out;
  std::vector<torch::Tensor> gradients;  // the input's, then each parameter's
};

// `layer`'s output for x and the gradients of sum(out * upstream), with the fused operator
// used as `use` asks. Checks that the fused operator ran exactly where it was asked to.
AttentionRun attention_run(torch::nn::Module& layer, const torch::Tensor& x0, const torch::Tensor& upstream,
                           FusedAttentionUse use, const std::function<torch::Tensor(const torch::Tensor&)>& forward) {
  const FusedAttentionUseScope scope(use);
  layer.zero_grad();
  auto x = x0.detach().clone().requires_grad_();
  torch::Tensor out;
  const long fused_calls = fused_attention_calls([&] { (out = forward(x) * upstream).sum().backward(); });
  EXPECT_EQ(fused_calls > 0, use == FusedAttentionUse::kEverywhere) << fused_calls << " fused calls";
  AttentionRun run{out.detach(), {x.grad().clone()}};
  for (const auto& p : layer.parameters()) run.gradients.push_back(p.grad().clone());
  return run;
}

void expect_runs_equal(const AttentionRun& fused, const AttentionRun& plain, double tolerance,
                       const std::string& what) {
  EXPECT_TRUE(torch::allclose(fused.out, plain.out, tolerance, tolerance))
      << what << ": output differs by " << (fused.out - plain.out).abs().max().item<double>();
  ASSERT_EQ(fused.gradients.size(), plain.gradients.size());
  for (std::size_t i = 0; i < plain.gradients.size(); ++i) {
    EXPECT_TRUE(torch::allclose(fused.gradients[i], plain.gradients[i], tolerance, tolerance))
        << what << ": gradient " << i << " differs by "
        << (fused.gradients[i] - plain.gradients[i]).abs().max().item<double>();
  }
}

std::string case_name(Layout layout, const std::string& mask, c10::Device device) {
  return to_string(layout) + ", mask " + mask + ", " + (device.is_cuda() ? "cuda" : "cpu");
}

TEST(FusedAttention, RefusedWhereLibTorchLacksIt) {
  if (fused_attention_compiled()) GTEST_SKIP() << "this LibTorch (" TORCH_VERSION ") has the fused operator";
  const FusedAttentionUseScope scope(FusedAttentionUse::kEverywhere);
  EXPECT_FALSE(fused_attention_on(torch::kCPU));
  EXPECT_FALSE(fused_attention_on(torch::kCUDA));
  const auto q = torch::randn({1, 1, 2, 4});
  try {
    fused_attention(q, q, q, {}, 0.0, 0.5);
    ADD_FAILURE() << "expected a refusal";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("fused attention needs LibTorch 2.1 or later (this is " TORCH_VERSION ")"),
              std::string::npos)
        << e.what();
  }
}

TEST(FusedAttention, WhereItRuns) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  // The default: on a GPU only.
  EXPECT_TRUE(fused_attention_on(torch::kCUDA));
  EXPECT_FALSE(fused_attention_on(torch::kCPU));
  {
    const FusedAttentionUseScope everywhere(FusedAttentionUse::kEverywhere);
    EXPECT_TRUE(fused_attention_on(torch::kCPU));
  }
  const FusedAttentionUseScope nowhere(FusedAttentionUse::kNowhere);
  EXPECT_FALSE(fused_attention_on(torch::kCUDA));
}

// Calls fn for every device of fused_devices() and every layout.
void for_every_device_and_layout(const std::function<void(c10::Device, Layout)>& fn) {
  for (const auto device : fused_devices()) {
    for (const auto layout : {Layout::kVaswani, Layout::kDLStudio, Layout::kPositionwise}) fn(device, layout);
  }
}

// `layer`'s forward and backward with the fused operator equal those with the plain path.
void expect_fused_equals_plain(torch::nn::Module& layer, const torch::Tensor& x, const torch::Tensor& upstream,
                               const std::function<torch::Tensor(const torch::Tensor&)>& forward,
                               const std::string& what) {
  const auto fused = attention_run(layer, x, upstream, FusedAttentionUse::kEverywhere, forward);
  const auto plain = attention_run(layer, x, upstream, FusedAttentionUse::kNowhere, forward);
  expect_runs_equal(fused, plain, fused_tolerance(x.device()), what);
}

TEST(FusedAttention, SelfAttentionEqualsThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  for_every_device_and_layout([](c10::Device device, Layout layout) {
    torch::manual_seed(11);
    SelfAttention layer(fused_config(layout));
    layer->to(device);
    const auto x = torch::randn({3, 6, 32}, torch::TensorOptions().device(device));
    const auto upstream = torch::randn({3, 6, 32}, torch::TensorOptions().device(device));
    for (const auto& [name, mask] : fused_masks(layout, 3, 6, device)) {
      expect_fused_equals_plain(
          *layer, x, upstream, [&, mask = mask](const torch::Tensor& input) { return layer->forward(input, mask); },
          case_name(layout, name, device));
    }
  });
}

TEST(FusedAttention, CrossAttentionEqualsThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  for_every_device_and_layout([](c10::Device device, Layout layout) {
    torch::manual_seed(12);
    CrossAttention layer(fused_config(layout));
    layer->to(device);
    const auto options = torch::TensorOptions().device(device);
    const auto x = torch::randn({3, 6, 32}, options);
    const auto encoder_out = torch::randn({3, 6, 32}, options);
    const auto upstream = torch::randn({3, 6, 32}, options);
    // No mask, and in the vaswani layout the key padding (the last of fused_masks).
    auto masks = fused_masks(layout, 3, 6, device);
    masks.erase(masks.begin() + 1, masks.end() - (layout == Layout::kVaswani ? 1 : 0));
    for (const auto& [name, mask] : masks) {
      expect_fused_equals_plain(
          *layer, x, upstream,
          [&, mask = mask](const torch::Tensor& input) { return layer->forward(input, encoder_out, mask); },
          case_name(layout, name, device));
    }
  });
}

// Under bf16 autocast (the programs' --precision bf16) with the float32 additive mask: the
// fused operator follows the plain path within bf16's rounding.
TEST(FusedAttention, Bf16AutocastWithAMaskFollowsThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  for (const auto device : fused_devices()) {
    if (device.is_cpu() && !util::cpu_has_bf16_kernels()) continue;
    torch::manual_seed(16);
    SelfAttention layer(fused_config(Layout::kVaswani));
    layer->to(device);
    const auto x = torch::randn({3, 6, 32}, torch::TensorOptions().device(device));
    const auto mask = causal_mask(6, torch::TensorOptions(torch::kFloat).device(device));
    const auto run = [&](FusedAttentionUse use) {
      const FusedAttentionUseScope scope(use);
      const util::AutocastScope autocast(util::autocast_for(util::Precision::kBf16, device));
      return layer->forward(x, mask).to(torch::kFloat);
    };
    const auto fused = run(FusedAttentionUse::kEverywhere), plain = run(FusedAttentionUse::kNowhere);
    // bf16 keeps 8 bits of mantissa: the two paths round at different places.
    EXPECT_TRUE(torch::allclose(fused, plain, 3e-2, 3e-2))
        << (device.is_cuda() ? "cuda" : "cpu") << ": differs by " << (fused - plain).abs().max().item<double>();
  }
}

// The attention page and the tests read the weights: the plain path gives them, fused or not.
TEST(FusedAttention, WeightsAskedForTakeThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  const FusedAttentionUseScope scope(FusedAttentionUse::kEverywhere);
  torch::manual_seed(13);
  SelfAttention layer(fused_config(Layout::kVaswani));
  const auto x = torch::randn({2, 6, 32});
  torch::Tensor weights;
  const long fused_calls = fused_attention_calls([&] { layer->forward(x, {}, &weights); });
  EXPECT_EQ(fused_calls, 0);
  ASSERT_TRUE(weights.defined());
  EXPECT_EQ(weights.sizes(), (std::vector<std::int64_t>{2, 4, 6, 6}));
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({2, 4, 6}), 1e-5, 1e-5));
}

// Dropout on the weights in training: both paths unbiased (the mean over many draws is the
// output without dropout), masks fresh on each call, and the same spread around the mean.
TEST(FusedAttention, DropoutSpreadsAsThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  for (const auto device : fused_devices()) {
    torch::manual_seed(14);
    auto config = fused_config(Layout::kVaswani);
    config.dropout(0.3);
    SelfAttention layer(config);
    layer->to(device);
    const auto x = torch::randn({4, 6, 32}, torch::TensorOptions().device(device));
    layer->eval();
    const auto expected = layer->forward(x).detach();
    layer->train();
    torch::NoGradGuard no_grad;
    const auto draws_of = [&](FusedAttentionUse use) {
      const FusedAttentionUseScope scope(use);
      std::vector<torch::Tensor> draws;
      for (int i = 0; i < 400; ++i) draws.push_back(layer->forward(x));
      return torch::stack(draws);  // [400, B, L, M]
    };
    const auto fused = draws_of(FusedAttentionUse::kEverywhere);
    const auto plain = draws_of(FusedAttentionUse::kNowhere);
    const std::string where = device.is_cuda() ? "cuda" : "cpu";
    EXPECT_FALSE(torch::allclose(fused[0], fused[1])) << where << ": the same mask twice";
    // The mean of 400 draws is within a few standard errors of the expected output.
    for (const auto& [name, draws] : {std::pair{"fused", fused}, std::pair{"plain", plain}}) {
      const auto error = (draws.mean(0) - expected).abs() / (draws.std(0) / std::sqrt(400.0) + 1e-6);
      EXPECT_LT(error.mean().item<double>(), 1.2) << where << ", " << name << ": biased";
    }
    const double spread_ratio = fused.std(0).mean().item<double>() / plain.std(0).mean().item<double>();
    EXPECT_NEAR(spread_ratio, 1.0, 0.1) << where << ": another dropout probability than the plain path's";
  }
}

// The tiny seq2seq run of the other training tests, 8 steps without dropout, fused and plain:
// the same losses step for step. On the CPU the fused operator runs only because this test asks.
std::vector<double> fused_run_losses(FusedAttentionUse use, const std::string& device, const std::string& name) {
  const FusedAttentionUseScope scope(use);
  const auto dir = test::fresh_temp_dir(name);
  auto setup = test::tiny_seq2seq_setup(dir);
  setup.model.transformer().dropout(0.0);
  setup.run.max_iters = 8;
  setup.run.log_every = 1;
  setup.run.device = device;
  setup.samples = 0;
  setup.bleu_sentences = 20;
  train::train_seq2seq(setup);
  return test::step_losses(dir);
}

TEST(FusedAttention, TrainsAsThePlainPath) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  for (const auto device : fused_devices()) {
    const std::string where = device.is_cuda() ? "cuda" : "cpu";
    const auto fused = fused_run_losses(FusedAttentionUse::kEverywhere, where, "fused_attention_" + where);
    const auto plain = fused_run_losses(FusedAttentionUse::kNowhere, where, "plain_attention_" + where);
    ASSERT_EQ(fused.size(), 8u);
    ASSERT_EQ(fused.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      EXPECT_NEAR(fused[i], plain[i], 1e-4 * std::abs(plain[i])) << where << ", step " << i + 1;
    }
  }
}

// What the lever saves: the operators one self-attention layer's forward and backward dispatch.
// Without dropout (on the CPU LibTorch's fused kernel takes none; with dropout it composes the
// plain operators, as its math path): one operator, one autograd node for the attention.
TEST(FusedAttention, DispatchesFewerOperators) {
  SKIP_WITHOUT_FUSED_ATTENTION();
  torch::manual_seed(15);
  SelfAttention layer(fused_config(Layout::kVaswani));
  const auto x = torch::randn({3, 6, 32}, torch::requires_grad());
  const auto mask = causal_mask(6, torch::TensorOptions(torch::kFloat));
  const auto count = [&](FusedAttentionUse use) {
    const FusedAttentionUseScope scope(use);
    return util::count_operators([&] { layer->forward(x, mask).sum().backward(); });
  };
  const auto fused = count(FusedAttentionUse::kEverywhere);
  const auto plain = count(FusedAttentionUse::kNowhere);
  std::printf(
      "one self-attention layer, forward and backward: top-level operators %ld fused, %ld plain; "
      "autograd nodes %ld fused, %ld plain\n",
      fused.top_level_ops, plain.top_level_ops, fused.autograd_nodes, plain.autograd_nodes);
  EXPECT_LT(fused.top_level_ops, plain.top_level_ops);
  EXPECT_LT(fused.autograd_nodes, plain.autograd_nodes);
}

}  // namespace
}  // namespace fused_attention_test
}  // namespace dls
