// The fused attention layers save as DLStudio's per-head module tree: the same names, in the
// same order, with the same numbers (support/per_head_attention.h is that tree).
#include "dls/layers/saved_tensors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "support/per_head_attention.h"

namespace dls {
namespace saved_tensors_test {
namespace {

using test_support::PerHeadAttention;

TransformerConfig config_of(Layout layout) {
  TransformerConfig config;
  config.layout(layout).embedding_size(16).num_heads(4).max_seq_length(6).dropout(0.0);
  return config;
}

std::vector<std::string> names_of(const NamedTensors& tensors) {
  std::vector<std::string> names;
  for (const auto& entry : tensors) names.push_back(entry.first);
  return names;
}

class SavedTensorsLayouts : public ::testing::TestWithParam<Layout> {};

TEST_P(SavedTensorsLayouts, FusedLayersSaveAsDLStudiosPerHeadTree) {
  const auto config = config_of(GetParam());
  for (const bool cross : {false, true}) {
    torch::manual_seed(9);
    std::shared_ptr<torch::nn::Module> fused;
    if (cross) {
      fused = CrossAttention(config).ptr();
    } else {
      fused = SelfAttention(config).ptr();
    }
    torch::manual_seed(9);
    PerHeadAttention per_head(config, cross);
    const auto ours = saved_tensors(*fused), theirs = saved_tensors(*per_head);
    ASSERT_EQ(names_of(ours), names_of(theirs)) << (cross ? "cross" : "self");
    for (std::size_t i = 0; i < ours.size(); ++i) {
      ASSERT_EQ(ours[i].second.defined(), theirs[i].second.defined()) << ours[i].first;
      if (ours[i].second.defined()) {
        EXPECT_TRUE(torch::equal(ours[i].second, theirs[i].second)) << ours[i].first;
      }
    }
    // Where nothing is fused, the walk is LibTorch's own.
    std::vector<std::string> libtorch_names;
    for (const auto& p : per_head->named_parameters()) libtorch_names.push_back(p.key());
    EXPECT_EQ(names_of(saved_parameters(*per_head)), libtorch_names);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, SavedTensorsLayouts,
                         ::testing::Values(Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani),
                         [](const auto& info) { return to_string(info.param); });

TEST(SavedTensors, PartsAreViewsOfTheirParameters) {
  CrossAttention cross(config_of(Layout::kVaswani));
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : saved_parameters(*cross)) {
    if (name == "attention_heads_arr.1.WV.bias") tensor.fill_(7);
  }
  EXPECT_TRUE(torch::equal(cross->head_projection(1, Projection::kV).bias, torch::full({4}, 7.0)));
  EXPECT_TRUE(torch::equal(cross->kv_bias.select(0, 1).narrow(0, 4, 4), torch::full({4}, 7.0)));
}

// Tensors standing for the parameters (an average, a moment) are parted the same way.
TEST(SavedTensors, OtherTensorsArePartedAsTheParameters) {
  SelfAttention self(config_of(Layout::kDLStudio));
  std::vector<torch::Tensor> doubled;
  for (const auto& p : self->parameters()) doubled.push_back(p.detach() * 2);
  const auto parts = saved_parameters(*self, doubled), parameters = saved_parameters(*self);
  ASSERT_EQ(names_of(parts), names_of(parameters));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    EXPECT_TRUE(torch::equal(parts[i].second, parameters[i].second * 2)) << parts[i].first;
  }
  EXPECT_THROW(saved_parameters(*self, {doubled.front()}), c10::Error);
}

}  // namespace
}  // namespace saved_tensors_test
}  // namespace dls
