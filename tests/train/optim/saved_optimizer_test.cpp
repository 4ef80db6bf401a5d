// A checkpoint of the per-head layout (DLStudio's module tree, as this project wrote them
// before the attention heads were fused) resumes into the fused layers, Adam's moments
// included, and one written now resumes into the per-head tree: a step after either load
// lands where the other layout's step lands.
#include "dls/train/optim/saved_optimizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/layers/attention.h"
#include "dls/layers/saved_tensors.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/util/key_values.h"
#include "support/per_head_attention.h"
#include "util/temp_files.h"

namespace dls {
namespace saved_optimizer_test {
namespace {

using test_support::PerHeadAttention;

TransformerConfig vaswani() {
  TransformerConfig config;
  config.layout(Layout::kVaswani).embedding_size(16).num_heads(4).max_seq_length(6).dropout(0.0);
  return config;
}

// One layer, fused or per head, with its optimizer and the loss of one batch.
struct Layer {
  std::shared_ptr<torch::nn::Module> module;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::shared_ptr<train::GradientBuffer> gradients;  // the graph-safe optimizer's flat gradients

  void step(const torch::Tensor& x) {
    if (gradients) {
      gradients->zero();  // the flat buffer's views stay the gradients
    } else {
      optimizer->zero_grad();
    }
    forward(x).pow(2).mean().backward();
    optimizer->step();
  }
};

settings::OptimizerSettings adamw(bool fused) {
  settings::OptimizerSettings options;
  options.kind = settings::OptimizerKind::kAdamW;
  options.fused = fused;
  options.weight_decay = 0.01;
  return options;
}

// The fused layer on the trainers' CPU optimizer (FusedAdamW) or their GPU one (the
// graph-safe AdamW over flat gradients, run eagerly here), the per-head tree on LibTorch's.
Layer fused_layer(bool cross, bool graph_safe) {
  Layer layer;
  if (cross) {
    CrossAttention attention(vaswani());
    layer.module = attention.ptr();
    layer.forward = [attention](const torch::Tensor& x) mutable { return attention(x, x); };
  } else {
    SelfAttention attention(vaswani());
    layer.module = attention.ptr();
    layer.forward = [attention](const torch::Tensor& x) mutable { return attention(x); };
  }
  if (graph_safe) {
    layer.gradients = std::make_shared<train::GradientBuffer>(layer.module->parameters());
    layer.optimizer = train::make_graph_safe_optimizer(layer.gradients->parameters(), layer.gradients->flat(),
                                                       adamw(/*fused=*/false), 0.01);
  } else {
    layer.optimizer = train::make_optimizer(layer.module->parameters(), adamw(/*fused=*/true), 0.01);
  }
  return layer;
}

Layer per_head_layer(bool cross) {
  Layer layer;
  PerHeadAttention attention(vaswani(), cross);
  layer.module = attention.ptr();
  layer.forward = [attention](const torch::Tensor& x) mutable { return attention(x, x); };
  layer.optimizer = train::make_optimizer(layer.module->parameters(), adamw(/*fused=*/false), 0.01);
  return layer;
}

// Every weight but the keys' biases: a bias added to every key shifts all of a query's
// scores alike, which the softmax ignores, so their gradient is rounding noise, which Adam's
// normalisation turns into steps of the learning rate's size either way.
void expect_same_weights(const Layer& a, const Layer& b, const std::string& what) {
  const auto ours = saved_parameters(*a.module), theirs = saved_parameters(*b.module);
  ASSERT_EQ(ours.size(), theirs.size()) << what;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(ours[i].first, theirs[i].first) << what;
    if (ours[i].first.find("WK.bias") != std::string::npos) continue;
    EXPECT_TRUE(torch::allclose(ours[i].second, theirs[i].second, 1e-5, 1e-6))
        << what << ": " << ours[i].first << " differs by " << (ours[i].second - theirs[i].second).abs().max();
  }
}

// Writes `layer` (weights and optimizer) the way a trainer does.
void write(const Layer& layer, const std::string& path, bool saved_layout) {
  checkpoint::CheckpointWriter writer("toy");
  writer.add_settings(util::KeyValues());
  writer.add_module("model", *layer.module);
  if (saved_layout) {
    train::add_saved_optimizer(writer, "optimizer", *layer.optimizer, *layer.module);
  } else {
    writer.add_optimizer("optimizer", *layer.optimizer);
  }
  writer.save(path);
}

void read(Layer& layer, const std::string& path, bool saved_layout) {
  checkpoint::CheckpointReader reader(path, "toy");
  reader.load_module("model", *layer.module);
  if (saved_layout) {
    train::load_saved_optimizer(reader, "optimizer", *layer.optimizer, *layer.module);
  } else {
    reader.load_optimizer("optimizer", *layer.optimizer);
  }
}

TEST(SavedOptimizer, PerHeadFilesResumeIntoFusedLayersAndBack) {
  const auto dir = test::fresh_temp_dir("saved_optimizer_round_trip");
  for (const bool graph_safe : {false, true})
    for (const bool cross : {false, true}) {
      const std::string what = std::string(cross ? "cross-attention" : "self-attention") +
                               (graph_safe ? ", graph-safe AdamW" : ", fused AdamW");
      const auto x = torch::randn({3, 5, 16});
      // An earlier version's run: the per-head tree, two steps, saved by LibTorch.
      torch::manual_seed(4);
      auto before = per_head_layer(cross);
      before.step(x);
      before.step(x * 0.5);
      const auto old_file = (dir / (what + "_per_head.pt")).string();
      write(before, old_file, /*saved_layout=*/false);
      // Resumed into the fused layer (other initial weights, to be overwritten), one more step each.
      torch::manual_seed(5);
      auto resumed = fused_layer(cross, graph_safe);
      read(resumed, old_file, /*saved_layout=*/true);
      expect_same_weights(resumed, before, what + ", loaded");
      before.step(x * 2);
      resumed.step(x * 2);
      expect_same_weights(resumed, before, what + ", a step after resuming an old file");
      // The fused run saved, resumed by the per-head tree: one more step each.
      const auto new_file = (dir / (what + "_fused.pt")).string();
      write(resumed, new_file, /*saved_layout=*/true);
      torch::manual_seed(6);
      auto back = per_head_layer(cross);
      read(back, new_file, /*saved_layout=*/false);
      back.step(x);
      resumed.step(x);
      expect_same_weights(resumed, back, what + ", a step after an earlier version resumed the new file");
    }
}

// A frozen weight is in neither optimizer (GradientBuffer leaves out what has no gradient):
// the state of the others still goes per head, both ways.
TEST(SavedOptimizer, FrozenWeightsAreLeftOutOnBothSides) {
  const auto dir = test::fresh_temp_dir("saved_optimizer_frozen");
  const auto x = torch::randn({3, 5, 16});
  const auto freeze_output = [](Layer& layer, bool per_head) {
    for (auto& p : layer.module->named_parameters()) {
      if (p.key().rfind("W_O.", 0) == 0) p.value().set_requires_grad(false);
    }
    std::vector<torch::Tensor> trained;
    for (const auto& p : layer.module->parameters()) {
      if (p.requires_grad()) trained.push_back(p);
    }
    if (per_head) {
      layer.optimizer = train::make_optimizer(trained, adamw(false), 0.01);
    } else {
      layer.gradients = std::make_shared<train::GradientBuffer>(layer.module->parameters());
      layer.optimizer =
          train::make_graph_safe_optimizer(layer.gradients->parameters(), layer.gradients->flat(), adamw(false), 0.01);
    }
  };
  torch::manual_seed(4);
  auto before = per_head_layer(false);
  freeze_output(before, true);
  before.step(x);
  const auto path = (dir / "frozen.pt").string();
  write(before, path, false);
  torch::manual_seed(5);
  auto resumed = fused_layer(false, true);
  freeze_output(resumed, false);
  read(resumed, path, true);
  before.step(x * 2);
  resumed.step(x * 2);
  expect_same_weights(resumed, before, "frozen W_O");
}

TEST(SavedOptimizer, AMismatchedFileIsOneClearError) {
  const auto dir = test::fresh_temp_dir("saved_optimizer_mismatch");
  torch::manual_seed(4);
  const auto x = torch::randn({3, 5, 16});
  auto wide = per_head_layer(false);
  wide.step(x);
  const auto path = (dir / "wide.pt").string();
  write(wide, path, false);
  TransformerConfig narrow_config = vaswani();
  narrow_config.num_heads(2);  // the same parameter count per layer, other head shapes
  SelfAttention narrow(narrow_config);
  auto optimizer = train::make_optimizer(narrow->parameters(), adamw(true), 0.01);
  checkpoint::CheckpointReader reader(path, "toy");
  try {
    train::load_saved_optimizer(reader, "optimizer", *optimizer, *narrow);
    FAIL() << "loaded the state of 4 heads into 2";
  } catch (const checkpoint::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": optimizer state does not match"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace saved_optimizer_test
}  // namespace dls
