#include "dls/checkpoint/vit_checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <torch/torch.h>

#include "dls/data/vit_dataset.h"
#include "dls/eval/vit_evaluation.h"
#include "dls/util/file_io.h"
#include "support/older_checkpoints.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

ViTCheckpointContents sample_contents() {
  ViTCheckpointContents contents;
  contents.settings = test::tiny_vit_settings("/nowhere");
  contents.settings.data.augment.flip = false;
  contents.settings.seed = 12345678901234567ULL;
  contents.normalization = data::Normalization{{0.286f}, {0.353f}};
  contents.state.completed_epochs = 2;
  contents.state.step_in_epoch = 3;
  contents.state.steps_per_epoch = 4;
  contents.state.global_step = 11;
  contents.test_accuracy = 0.75;
  return contents;
}

TEST(ViTCheckpoint, HoldsTheClassTokenAndRebuildsTheModel) {
  const auto dir = test::fresh_temp_dir("vit_checkpoint_roundtrip");
  const auto contents = sample_contents();
  torch::manual_seed(5);
  visTransformer model(contents.settings.model);
  const std::string path = (dir / "checkpoint_epoch_0003.pt").string();
  write_vit_checkpoint(path, contents, model, nullptr);

  const CheckpointReader reader(path, kViTCheckpointKind);
  EXPECT_NE(reader.settings().to_text().find("model.transformer.layout=vaswani"), std::string::npos);
  const auto back = read_vit_contents(reader);
  EXPECT_EQ(back.settings.to_settings().to_text(), contents.settings.to_settings().to_text());
  EXPECT_EQ(back.settings.seed, 12345678901234567ULL);
  EXPECT_FLOAT_EQ(back.normalization.mean.at(0), 0.286f);
  EXPECT_FLOAT_EQ(back.normalization.std.at(0), 0.353f);
  EXPECT_EQ(back.state.global_step, 11);
  EXPECT_EQ(back.state.file_epoch(), 3);
  EXPECT_DOUBLE_EQ(back.state.epochs_done(), 2.75);
  torch::manual_seed(6);  // a different initialisation, overwritten by the checkpoint
  auto loaded = load_vit_model(reader, back.settings);
  EXPECT_TRUE(torch::equal(loaded->class_token, model->class_token));
  EXPECT_TRUE(torch::equal(loaded->patch_embedding_generator->position_embedding,
                           model->patch_embedding_generator->position_embedding));
  EXPECT_EQ(read_vit_settings(dir.string()).to_settings().to_text(), contents.settings.to_settings().to_text());
}

TEST(ViTCheckpoint, CorruptAndForeignFilesGiveOneLineErrors) {
  const auto dir = test::fresh_temp_dir("vit_checkpoint_corrupt");
  const auto contents = sample_contents();
  visTransformer model(contents.settings.model);
  const std::string good = (dir / "good.pt").string();
  write_vit_checkpoint(good, contents, model, nullptr);
  const std::string bytes = util::read_file(good);

  const std::string truncated = (dir / "truncated.pt").string();
  test::write_bytes(truncated, bytes.substr(0, bytes.size() / 2));
  const std::string garbage = (dir / "garbage.pt").string();
  test::write_bytes(garbage, "this is not a checkpoint");
  for (const auto& path : {truncated, garbage}) {
    try {
      const CheckpointReader reader(path, kViTCheckpointKind);
      read_vit_contents(reader);
      FAIL() << "expected CheckpointError for " << path;
    } catch (const CheckpointError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  // A checkpoint of another kind is refused.
  CheckpointWriter other("seq2seq");
  other.add_settings(util::KeyValues());
  const std::string seq2seq = (dir / "seq2seq.pt").string();
  other.save(seq2seq);
  EXPECT_THROW(CheckpointReader(seq2seq, kViTCheckpointKind), CheckpointError);
}

TEST(ViTCheckpoint, MissingSettingIsNamed) {
  const auto dir = test::fresh_temp_dir("vit_checkpoint_missing");
  auto settings = sample_contents().settings.to_settings();
  util::KeyValues partial;
  for (const auto& [key, value] : settings.entries()) {
    if (key != "model.patch_size") partial.set(key, value);
  }
  CheckpointWriter writer(kViTCheckpointKind);
  writer.add_settings(partial);
  const std::string path = (dir / "partial.pt").string();
  writer.save(path);
  try {
    read_vit_contents(CheckpointReader(path, kViTCheckpointKind));
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& error) {
    EXPECT_NE(std::string(error.what()).find("patch_size"), std::string::npos) << error.what();
  }
}

// Random erasing is saved with the run; settings from before it existed read as "no erasing".
TEST(ViTCheckpoint, RandomErasingRoundTripsAndDefaultsToOffInOlderSettings) {
  auto settings = sample_contents().settings;
  settings.data.augment.erase = 0.25;
  const auto text = settings.to_settings();
  EXPECT_DOUBLE_EQ(settings::ViTTrainSettings::from_settings(text).data.augment.erase, 0.25);
  util::KeyValues older;
  for (const auto& [key, value] : text.entries()) {
    if (key != "data.augment_erase") older.set(key, value);
  }
  ASSERT_EQ(older.entries().size() + 1, text.entries().size());
  EXPECT_DOUBLE_EQ(settings::ViTTrainSettings::from_settings(older).data.augment.erase, 0.0);
}

// An evaluation reads the test images its checkpoint's run tested on (a --test-subset other
// than all) and normalises them as that run did (the training images' own statistics):
// its accuracy is the one training recorded.
TEST(ViTCheckpoint, EvaluationReadsTrainingsTestImagesAndNormalisation) {
  const auto data_dir = test::tiny_fashion_dir("vit_checkpoint_eval_images");
  auto settings = test::tiny_vit_settings(data_dir);
  settings.data.test_subset = 12;
  settings.data.normalization = "dataset";
  settings.epochs = 1;
  const auto trained = test::train_vit_with(settings, test::tiny_vit_run(test::fresh_temp_dir("vit_checkpoint_eval")));
  ASSERT_FALSE(trained.checkpoints.empty());
  const CheckpointReader reader(trained.checkpoints.back(), kViTCheckpointKind);
  const auto contents = read_vit_contents(reader);

  const auto training = data::load_vit_training_dataset(settings.data, nullptr);
  const auto test_images = eval::load_test_images(contents, {});
  ASSERT_EQ(test_images.size(), 12u);
  EXPECT_EQ(test_images.size(), training.test->size());
  EXPECT_EQ(test_images.pixels, training.test->pixels);
  EXPECT_EQ(test_images.labels, training.test->labels);
  EXPECT_EQ(contents.normalization.mean, training.normalization.mean);
  EXPECT_EQ(contents.normalization.std, training.normalization.std);

  const auto result = eval::evaluate_vit_checkpoint(trained.checkpoints.back(), test_images, {});
  EXPECT_NEAR(result.confusion.accuracy(), contents.test_accuracy, 1e-12);
}

// A checkpoint written before RunState (tests/fixtures/vit_checkpoint/older_mid_epoch.pt:
// 61b3874's vit_train stopped at step 2 of its first epoch; its state in a ViT's own keys --
// epoch_seen, epoch_correct, images_per_s) resumes where its run stood: one more step ends on
// the images this build's own run of the same settings has seen at step 3.
TEST(ViTCheckpoint, ACheckpointWrittenBeforeRunStateResumesWhereItStood) {
  const auto fixture = fs::path(testing::fixtures_dir()) / "vit_checkpoint" / "older_mid_epoch.pt";
  const CheckpointReader older_reader(fixture.string(), kViTCheckpointKind);
  EXPECT_TRUE(older_reader.settings().has("state.epoch_seen")) << "the older keys";
  const auto older = read_vit_contents(older_reader);
  EXPECT_EQ(older.state.step_in_epoch, 2);
  EXPECT_EQ(older.state.epoch_examples, 32);
  EXPECT_EQ(older.state.epoch_loss_weight, 32.0);  // a ViT's loss sum is over images
  EXPECT_LE(older.state.epoch_correct, 32);

  // The fixture's own settings, on the same fake images in a folder of this test.
  auto settings = older.settings;
  settings.data.data_dir = test::tiny_fashion_dir("vit_older").string();
  settings.run = test::tiny_vit_run(test::fresh_temp_dir("vit_older_straight"));
  settings.run.max_iters = 3;
  const auto run = test::expect_resume_to_stand_where_straight_stands(
      settings, fixture, "vit_older_resumed", [](const auto& s) { return train::train_vit(s); });
  EXPECT_EQ(run.resumed.step_in_epoch, 3);
  EXPECT_EQ(run.resumed.epoch_loss_weight, run.straight.epoch_loss_weight);
  EXPECT_GE(run.resumed.epoch_correct, older.state.epoch_correct);
  EXPECT_LE(run.resumed.epoch_correct, run.resumed.epoch_examples);
}

}  // namespace
}  // namespace dls::checkpoint
