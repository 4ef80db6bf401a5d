#include "dls/settings/run_settings.h"

#include <gtest/gtest.h>

#include "dls/settings/lm_settings.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/settings/vit_settings.h"

namespace dls::settings {
namespace {

RunSettings unusual_run() {
  RunSettings run;
  run.device = "auto";
  run.precision = util::Precision::kBf16;
  run.workers = 2;
  run.parallel.accum_steps = 4;
  run.run_dir = "/somewhere/run";
  run.checkpoint_every = 7;
  run.keep_last = 2;
  run.log_every = 13;
  run.tensorboard = true;
  run.max_iters = 99;
  run.time_limit_s = 60;
  run.resume = "/somewhere/run";
  run.overwrite = true;
  run.dry_run = true;
  run.config_toml = "epochs=3\n";
  return run;
}

TEST(RunSettings, SavesWhatAResumeKeepsAndNothingOfTheInvocation) {
  const auto saved = unusual_run().to_settings();
  std::vector<std::string> keys;
  for (const auto& [key, value] : saved.entries()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"time_limit_s", "device", "precision", "checkpoint_every", "keep_last",
                                            "log_every", "tensorboard"}));
  const RunSettings defaults;
  const auto read = RunSettings::from_settings(saved, defaults);
  EXPECT_EQ(read.device, "auto");
  EXPECT_EQ(read.precision, util::Precision::kBf16);
  EXPECT_EQ(read.checkpoint_every, 7);
  EXPECT_EQ(read.keep_last, 2);
  EXPECT_EQ(read.log_every, 13);
  EXPECT_TRUE(read.tensorboard);
  EXPECT_EQ(read.max_iters, 0);
  EXPECT_TRUE(read.run_dir.empty());
}

// Checkpoints pile up no more by default; a run whose checkpoints do not record keep_last
// kept them all, and a resume goes on keeping them all.
TEST(RunSettings, KeepLastDefaultsToFiveButOlderRunsKeepAll) {
  const RunSettings defaults;
  const Seq2SeqTrainSettings seq2seq;
  const ViTTrainSettings vit;
  const LmTrainSettings lm;
  EXPECT_EQ(defaults.keep_last, 5);
  EXPECT_EQ(seq2seq.run.keep_last, 5);
  EXPECT_EQ(vit.run.keep_last, 5);
  EXPECT_EQ(lm.run.keep_last, 5);
  util::KeyValues older;
  older.set("device", "cpu");
  EXPECT_EQ(RunSettings::from_settings(older, defaults).keep_last, 0);
  older.set("keep_last", 3);
  EXPECT_EQ(RunSettings::from_settings(older, defaults).keep_last, 3);
}

TEST(RunSettings, AResumeStartsFromTheSavedFieldsOnly) {
  const auto resumed = unusual_run().resume_defaults();
  EXPECT_EQ(resumed.device, "auto");
  EXPECT_EQ(resumed.precision, util::Precision::kBf16);
  EXPECT_EQ(resumed.checkpoint_every, 7);
  EXPECT_EQ(resumed.keep_last, 2);
  EXPECT_EQ(resumed.log_every, 13);
  const RunSettings fresh;
  EXPECT_EQ(resumed.workers, fresh.workers);
  EXPECT_EQ(resumed.parallel.accum_steps, fresh.parallel.accum_steps);
  EXPECT_TRUE(resumed.run_dir.empty()) << "the checkpoint's run, unless --run-dir says otherwise";
  EXPECT_EQ(resumed.max_iters, 0);
  EXPECT_EQ(resumed.time_limit_s, 60) << "the run's budget, shown in the start-up line and kept";
  EXPECT_TRUE(resumed.resume.empty());
  EXPECT_FALSE(resumed.overwrite);
  EXPECT_FALSE(resumed.dry_run);
  EXPECT_TRUE(resumed.config_toml.empty());
}

TEST(RunSettings, AMissingKeyKeepsTheDefaultAndABadOneIsNamed) {
  RunSettings defaults;
  defaults.log_every = 50;
  util::KeyValues partial;
  partial.set("device", "cuda");
  const auto read = RunSettings::from_settings(partial, defaults);
  EXPECT_EQ(read.device, "cuda");
  EXPECT_EQ(read.log_every, 50);
  util::KeyValues bad;
  bad.set("precision", "fp8");
  try {
    RunSettings::from_settings(bad, defaults);
    FAIL() << "fp8 accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("precision"), std::string::npos) << error.what();
  }
}

// Every task keeps its RunSettings under "run." and reads it back, with its own defaults.
TEST(RunSettings, EachTasksSettingsCarryTheirRun) {
  Seq2SeqTrainSettings seq2seq;
  seq2seq.run = unusual_run();
  EXPECT_EQ(Seq2SeqTrainSettings::from_settings(seq2seq.to_settings()).run.log_every, 13);
  EXPECT_EQ(Seq2SeqTrainSettings{}.run.checkpoint_every, 5);
  LmTrainSettings lm;
  lm.run = unusual_run();
  EXPECT_EQ(LmTrainSettings::from_settings(lm.to_settings()).run.precision, util::Precision::kBf16);
  ViTTrainSettings vit;
  vit.run = unusual_run();
  EXPECT_EQ(ViTTrainSettings::from_settings(vit.to_settings()).run.keep_last, 2);
  EXPECT_EQ(ViTTrainSettings{}.run.log_every, 50);
}

// A checkpoint written before RunSettings kept the seq2seq run's fields beside the others.
TEST(RunSettings, OlderSeq2SeqCheckpointsStillLoad) {
  auto saved = Seq2SeqTrainSettings{}.to_settings();
  util::KeyValues older;
  for (const auto& [key, value] : saved.entries()) {
    if (key.rfind("training.run.", 0) != 0) older.set(key, value);
  }
  older.set("training.device", "cuda");
  older.set("training.checkpoint_every", std::int64_t{3});
  older.set("training.keep_last", 4);
  older.set("training.log_every", std::int64_t{9});
  older.set("training.run_dir", "runs/old");
  older.set("training.max_iters", std::int64_t{0});
  older.set("training.time_limit_s", 0.0);
  const auto read = Seq2SeqTrainSettings::from_settings(older);
  EXPECT_EQ(read.run.device, "cuda");
  EXPECT_EQ(read.run.checkpoint_every, 3);
  EXPECT_EQ(read.run.keep_last, 4);
  EXPECT_EQ(read.run.log_every, 9);
  EXPECT_EQ(read.run.precision, util::Precision::kFp32);
}

}  // namespace
}  // namespace dls::settings
