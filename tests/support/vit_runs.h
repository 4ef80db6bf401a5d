// Tiny visTransformer training runs for the trainer, checkpoint and evaluation tests.
#pragma once

#include <filesystem>
#include <string>

#include <torch/torch.h>

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/train/tasks/vit_presets.h"
#include "dls/train/tasks/vit_trainer.h"
#include "support/idx_files.h"

namespace dls::test {

// The fashion preset shrunk to M = 16, 2 heads, 1 encoder, patch 7, batch 16, 3 epochs, with
// dropout and augmentation on (so that resuming must restore the random state), reading
// `data_dir`.
inline settings::ViTTrainSettings tiny_vit_settings(const std::filesystem::path& data_dir) {
  auto s = train::vit_preset("fashion");
  s.data.data_dir = data_dir.string();
  s.model.transformer().embedding_size(16).num_heads(2).ffn_multiplier(2).dropout(0.1);
  // The preset's kind of stem, narrower: 28 -> 28 -> 14 -> 7 -> 4, each position a token.
  s.model.stem({StemConv{4, 1}, StemConv{8, 2}, StemConv{8, 2}, StemConv{8, 2}}).patch_size(1);
  s.model.num_encoders(1).head_hidden_size(16).head_dropout(0.1);
  s.batch_size = 16;
  s.epochs = 3;
  s.warmup_epochs = 0.5;
  s.seed = 11;
  return s;
}

// The run settings of the tiny runs: a checkpoint and a metrics row at every epoch and step.
inline settings::RunSettings tiny_vit_run(const std::filesystem::path& run_dir) {
  settings::RunSettings run;
  run.run_dir = run_dir.string();
  run.checkpoint_every = 1;
  run.log_every = 1;
  return run;
}

// train::train_vit of `settings` with `run` as their RunSettings.
inline train::ViTTrainResult train_vit_with(settings::ViTTrainSettings settings, const settings::RunSettings& run) {
  settings.run = run;
  return train::train_vit(settings);
}

// A fake Fashion-MNIST folder of 64 training and 20 test images (4 steps per epoch).
inline std::filesystem::path tiny_fashion_dir(const std::string& name) {
  const auto dir = fresh_temp_dir(name + "_data");
  write_fake_fashion_mnist(dir, 64, 20);
  return dir;
}

// A tiny run of `epochs` epochs on a tiny_fashion_dir, in fresh folders named after `name`.
inline std::filesystem::path train_tiny_vit_run(const std::string& name, int epochs) {
  const auto data = tiny_fashion_dir(name);
  const auto dir = fresh_temp_dir(name + "_run");
  auto settings = tiny_vit_settings(data);
  settings.epochs = epochs;
  train_vit_with(settings, tiny_vit_run(dir));
  return dir;
}

// Two epochs of the tiny run, a checkpoint after each, for the tests that read its checkpoints
// (and write their reports beside them). Trained once per process, on first use.
inline const std::filesystem::path& two_epoch_tiny_vit_run() {
  static const auto run = train_tiny_vit_run("vit_two_epochs", 2);
  return run;
}

}  // namespace dls::test
