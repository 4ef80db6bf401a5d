#include "dls/eval/vit_evaluation.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "support/vit_runs.h"

namespace dls::eval {
namespace {

namespace fs = std::filesystem;

TEST(ViTEvaluation, EvaluatesEveryCheckpointOfARun) {
  const auto files = checkpoint::find_checkpoints(test::two_epoch_tiny_vit_run().string());
  ASSERT_EQ(files.size(), 2u);
  ViTEvalOptions options;
  const checkpoint::CheckpointReader reader(files[0], checkpoint::kViTCheckpointKind);
  const auto test_set = load_test_images(checkpoint::read_vit_contents(reader), options);
  EXPECT_EQ(test_set.size(), 20u);
  std::vector<ViTCheckpointResult> results;
  for (const auto& f : files) results.push_back(evaluate_vit_checkpoint(f, test_set, options));
  EXPECT_EQ(results[1].confusion.total(), 20);
  EXPECT_DOUBLE_EQ(results[1].contents.state.epochs_done(), 2.0);
  EXPECT_TRUE(std::isfinite(results[1].test_loss));
  // The trainer's last test accuracy is the evaluation's.
  EXPECT_DOUBLE_EQ(results[1].contents.test_accuracy, results[1].confusion.accuracy());
  const auto table = format_checkpoint_table(results);
  EXPECT_NE(table.find("checkpoint_epoch_0001.pt"), std::string::npos) << table;
  EXPECT_NE(table.find("best: " + results[best_result(results)].path), std::string::npos) << table;
}

TEST(ViTEvaluation, ClassTokenAttentionMaps) {
  const auto file = checkpoint::latest_checkpoint(test::two_epoch_tiny_vit_run().string());
  const checkpoint::CheckpointReader reader(file, checkpoint::kViTCheckpointKind);
  const auto contents = checkpoint::read_vit_contents(reader);
  auto model = checkpoint::load_vit_model(reader, contents.settings);
  const auto test_set = load_test_images(contents, {});
  const auto maps = class_token_attention_maps(model, test_set, contents.normalization, 3, torch::kCPU);
  ASSERT_EQ(maps.size(), 3u);
  for (const auto& map : maps) {
    ASSERT_EQ(map.mean.size(), 16u);  // 4 x 4 patches of 7 x 7
    ASSERT_EQ(map.heads.size(), 2u);
    double sum = 0;
    for (double w : map.mean) {
      EXPECT_GE(w, 0.0);
      sum += w;
    }
    EXPECT_LE(sum, 1.0 + 1e-9);
    EXPECT_DOUBLE_EQ(map.mean[5], (map.heads[0][5] + map.heads[1][5]) / 2);
  }
  const auto out = test::fresh_temp_dir("vit_attention_maps");
  const auto written = save_attention_maps(maps, test_set, 4, out.string());
  ASSERT_EQ(written.size(), 2u);
  for (const auto& path : written) EXPECT_GT(fs::file_size(path), 100u);
}

// A run with an inter-pixel attention block after stem layer 2 (32 channels at 14 x 14):
// its checkpoint rebuilds the block, and the maps show its attention over the 196 pixels.
TEST(ViTEvaluation, PixelAttentionMapsOfARunWithTheBlock) {
  const auto data = test::tiny_fashion_dir("vit_eval_pixel");
  const auto dir = test::fresh_temp_dir("vit_eval_pixel_run");
  auto settings = test::tiny_vit_settings(data);
  settings.model.stem({StemConv{4, 1}, StemConv{32, 2}, StemConv{8, 2}, StemConv{8, 2}}).pixel_attention({2, 2});
  settings.epochs = 1;
  test::train_vit_with(settings, test::tiny_vit_run(dir));
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(dir.string()),
                                            checkpoint::kViTCheckpointKind);
  const auto contents = checkpoint::read_vit_contents(reader);
  EXPECT_EQ(contents.settings.model.pixel_attention(), (PixelAttentionSpec{2, 2}));
  auto model = checkpoint::load_vit_model(reader, contents.settings);
  ASSERT_TRUE(model->pixel_attention);
  EXPECT_GT(model->pixel_attention->proj_out->weight.abs().sum().item<double>(), 0) << "trained, saved, loaded";
  const auto test_set = load_test_images(contents, {});
  const auto maps = class_token_attention_maps(model, test_set, contents.normalization, 2, torch::kCPU);
  ASSERT_EQ(maps.size(), 2u);
  for (const auto& map : maps) {
    EXPECT_EQ(map.pixel_side, 14);
    ASSERT_EQ(map.pixel_from_centre.size(), 196u);
    ASSERT_EQ(map.pixel_received.size(), 196u);
    double from_centre = 0, received = 0;
    for (std::size_t i = 0; i < 196; ++i) {
      from_centre += map.pixel_from_centre[i];
      received += map.pixel_received[i];
    }
    EXPECT_NEAR(from_centre, 1.0, 1e-5);  // one query's distribution over the pixels
    EXPECT_NEAR(received, 1.0, 1e-5);     // the mean of such distributions
  }
  const auto out = test::fresh_temp_dir("vit_pixel_attention_maps");
  const auto written = save_attention_maps(maps, test_set, model->config().grid_size(), out.string());
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(fs::path(written[2]).filename(), "pixel_attention.png");
  for (const auto& path : written) EXPECT_GT(fs::file_size(path), 100u);
}

}  // namespace
}  // namespace dls::eval
