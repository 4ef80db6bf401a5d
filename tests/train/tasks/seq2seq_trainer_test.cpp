// The seq2seq training loop on the sample corpus: it learns, resumes exactly where it
// stopped (weights, optimizer, dropout's random numbers, batch order, metrics), reports
// divergence, and leaves a complete run directory.
#include "dls/train/tasks/seq2seq_trainer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <utility>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/layers/saved_tensors.h"
#include "dls/models/seq2seq.h"
#include "dls/train/run/run_directory.h"
#include "dls/train/tasks/seq2seq_presets.h"
#include "dls/util/file_io.h"
#include "dls/util/key_values.h"
#include "util/temp_files.h"
#include "support/error_of.h"
#include "support/older_checkpoints.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

using checkpoint::find_checkpoints;
using checkpoint::latest_checkpoint;
using checkpoint::load_seq2seq_checkpoint;
using settings::ScheduleKind;

const std::string kSampleCorpus = dls::testing::sample_corpus();

std::vector<torch::Tensor> weights_of(const std::string& checkpoint) {
  const auto loaded = load_seq2seq_checkpoint(checkpoint);
  std::vector<torch::Tensor> out;
  for (const auto& p : loaded.model.module().parameters()) out.push_back(p.detach().clone());
  return out;
}

// The weights of two checkpoints agree (a run resumed against an uninterrupted one).
void expect_same_checkpoint_weights(const std::string& a_checkpoint, const std::string& b_checkpoint) {
  const auto a = weights_of(a_checkpoint);
  const auto b = weights_of(b_checkpoint);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a[i], b[i], 1e-5, 1e-6))
        << "parameter " << i << " differs by " << (a[i] - b[i]).abs().max().item<double>();
  }
}

std::vector<std::vector<std::string>> metric_rows(const fs::path& run_dir, const char* file = "metrics.csv") {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(run_dir / file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const auto comma = line.find(',', start);
      fields.push_back(line.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    rows.push_back(fields);
  }
  return rows;
}

double number(const std::string& text) { return text.empty() ? -1.0 : std::stod(text); }

// Same rows (kind, epoch, step, learning rate) and the same epoch results. Timing columns
// differ by run, and a resumed run's first logged window is shorter, so step losses differ.
void expect_same_metrics(const fs::path& a_dir, const fs::path& b_dir) {
  const auto a = metric_rows(a_dir), b = metric_rows(b_dir);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), 11u);
    ASSERT_EQ(b[i].size(), 11u);
    for (const int column : {0, 1, 2}) EXPECT_EQ(a[i][column], b[i][column]) << "row " << i;
    if (i == 0) continue;
    EXPECT_NEAR(number(a[i][4]), number(b[i][4]), 1e-12) << "lr, row " << i;
    for (const int column : {6, 7, 9, 10}) EXPECT_NEAR(number(a[i][column]), number(b[i][column]), 1e-4) << "row " << i;
    if (a[i][0] == "epoch") {
      EXPECT_NEAR(number(a[i][3]), number(b[i][3]), 1e-4) << "epoch loss, row " << i;
    }
  }
  // Every step's loss (loss_steps.csv, for the loss plot): the same steps, the same losses.
  const auto a_steps = metric_rows(a_dir, "loss_steps.csv"), b_steps = metric_rows(b_dir, "loss_steps.csv");
  ASSERT_EQ(a_steps.size(), b_steps.size());
  for (std::size_t i = 1; i < a_steps.size(); ++i) {
    EXPECT_EQ(a_steps[i][0], b_steps[i][0]) << "row " << i;
    EXPECT_NEAR(number(a_steps[i][1]), number(b_steps[i][1]), 1e-4) << "step loss, row " << i;
  }
}

TEST(Seq2SeqTrainer, LearnsTheSampleCorpusAndWritesTheRunDirectory) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_learns");
  const auto setup = test::tiny_seq2seq_setup(run);
  const auto result = train_seq2seq(setup, {});
  EXPECT_EQ(result.stopped_by, "epochs");
  EXPECT_EQ(result.epochs, 3);
  const auto pairs_per_epoch = 1264 - 100;  // at least 100 validation pairs are held out
  EXPECT_GE(result.iterations, 3 * ((pairs_per_epoch - 40) / 32));
  EXPECT_LT(result.final_loss, 3.0) << "the cross-entropy starts near log(V) ~ 4.6";
  EXPECT_TRUE(std::isfinite(result.val_loss));
  EXPECT_GT(result.val_bleu, 0.05);
  EXPECT_GT(result.pairs_per_s, 0.0);
  ASSERT_EQ(result.checkpoints.size(), 3u);
  for (const auto* name : {"metrics.csv", "loss.png", "bleu.png", "learning_rate.png", "positional_encoding.png",
                           "translations.txt", "validation_translations.tsv"}) {
    EXPECT_TRUE(fs::exists(run / name)) << name;
  }
  EXPECT_EQ(util::read_file((run / "loss.png").string()).substr(1, 3), "PNG");
  // The loss plot's data: one row per optimizer step, so a short run still draws a curve.
  const auto step_rows = metric_rows(run, "loss_steps.csv");
  ASSERT_EQ(step_rows.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_EQ(step_rows[0], (std::vector<std::string>{"step", "loss"}));
  for (std::size_t i = 1; i < step_rows.size(); ++i) {
    EXPECT_EQ(step_rows[i][0], std::to_string(i));
    EXPECT_TRUE(std::isfinite(number(step_rows[i][1]))) << "step " << i;
  }
  // Every score the epoch log line prints has a column; the last epoch's are the result's.
  const auto rows = metric_rows(run);
  ASSERT_EQ(rows.front(), (std::vector<std::string>{"kind", "epoch", "step", "loss", "lr", "pairs_per_s", "val_loss",
                                                    "val_bleu", "wall_s", "val_sacrebleu", "val_chrf"}));
  ASSERT_EQ(rows.back()[0], "epoch");
  EXPECT_NEAR(number(rows.back()[7]), result.val_bleu, 1e-6);
  EXPECT_NEAR(number(rows.back()[9]), result.val_sacrebleu, 1e-5 * result.val_sacrebleu);
  EXPECT_NEAR(number(rows.back()[10]), result.val_chrf, 1e-5 * result.val_chrf);
  EXPECT_GT(result.val_chrf, 0.0);
  const auto translations = util::read_file((run / "translations.txt").string());
  EXPECT_NE(translations.find("The input sentence pair:"), std::string::npos) << translations;
  EXPECT_NE(translations.find("The translation produced by TransformerPreLN:"), std::string::npos);

  // The last checkpoint alone rebuilds the model and its vocabularies.
  const auto loaded = load_seq2seq_checkpoint(result.checkpoints.back());
  EXPECT_EQ(loaded.info.state.global_step, result.iterations);
  EXPECT_EQ(loaded.info.state.completed_epochs, 3);
  EXPECT_EQ(loaded.info.state.step_in_epoch, 0);
  EXPECT_NEAR(loaded.info.val_bleu, result.val_bleu, 1e-12);
  EXPECT_EQ(loaded.english.size(), loaded.info.settings.model.src_vocab_size());
  EXPECT_EQ(loaded.info.settings.data.data_path, kSampleCorpus);
  EXPECT_EQ(find_checkpoints(run.string()).size(), 3u);
}

TEST(Seq2SeqTrainer, ResumedRunEqualsAnUninterruptedOne) {
  const auto straight = test::fresh_temp_dir("seq2seq_trainer_straight");
  const auto split = test::fresh_temp_dir("seq2seq_trainer_split");
  auto setup = test::two_short_epochs(test::tiny_seq2seq_setup(straight));
  const auto full = train_seq2seq(setup, {});

  // The same run stopped inside the first epoch, then resumed twice (once inside the
  // second epoch) until the end.
  setup.run.run_dir = split.string();
  setup.run.max_iters = 13;
  const auto first = train_seq2seq(setup, {});
  EXPECT_EQ(first.stopped_by, "max-iters");
  EXPECT_EQ(first.iterations, 13);
  // A row written after the checkpoint by an interrupted run is dropped on resume.
  std::ofstream(split / "metrics.csv", std::ios::app) << "step,1,14,9.9,0.001,1,,,1.0,,\n";
  std::ofstream(split / "loss_steps.csv", std::ios::app) << "14,9.9\n";
  setup.run.resume = split.string();
  setup.run.max_iters = full.iterations - 5;
  const auto second = train_seq2seq(setup);
  EXPECT_EQ(second.iterations, full.iterations - 5);
  setup.run.max_iters = 0;
  const auto third = train_seq2seq(setup);
  EXPECT_EQ(third.stopped_by, "epochs");
  EXPECT_EQ(third.iterations, full.iterations);

  expect_same_checkpoint_weights(full.checkpoints.back(), third.checkpoints.back());
  EXPECT_NEAR(full.val_bleu, third.val_bleu, 1e-9);
  EXPECT_NEAR(full.val_loss, third.val_loss, 1e-5);
  expect_same_metrics(straight, split);
}

// --max-tokens: batches filled to a token budget. Stopped inside the first epoch and resumed,
// the run takes exactly the batches of the uninterrupted one (the same weights and metrics),
// (tests/data/token_batches_test.cpp checks the budget itself).
TEST(Seq2SeqTrainer, TokenBatchesResumeExactly) {
  const auto straight = test::fresh_temp_dir("seq2seq_tokens_straight");
  const auto split = test::fresh_temp_dir("seq2seq_tokens_split");
  auto setup = test::two_short_epochs(test::tiny_seq2seq_setup(straight));
  setup.max_tokens = 200;
  const auto full = train_seq2seq(setup, {});
  EXPECT_EQ(full.iterations % 2, 0) << "the same batches every epoch";

  setup.run.run_dir = split.string();
  setup.run.max_iters = 7;
  const auto first = train_seq2seq(setup, {});
  EXPECT_EQ(first.iterations, 7);
  setup.run.resume = split.string();
  setup.run.max_iters = 0;
  const auto second = train_seq2seq(setup);
  EXPECT_EQ(second.iterations, full.iterations);
  expect_same_checkpoint_weights(full.checkpoints.back(), second.checkpoints.back());
  EXPECT_NEAR(full.val_loss, second.val_loss, 1e-5);
  expect_same_metrics(straight, split);
}

// A checkpoint written before RunState (tests/fixtures/seq2seq_checkpoint/older_mid_epoch.pt:
// 61b3874's seq2seq_train stopped at step 7 of its first epoch of token batches; its progress
// 1-based, without the pairs its epoch had trained) resumes where its run stood: two more
// steps end on the state this build's own run saves at step 9 -- the pairs of the epoch's
// first 7 batches counted by the task, the rest by the loop.
TEST(Seq2SeqTrainer, ACheckpointWrittenBeforeRunStateResumesWhereItStood) {
  const auto fixture = fs::path(testing::fixtures_dir()) / "seq2seq_checkpoint" / "older_mid_epoch.pt";
  const auto older = checkpoint::RunState::from_settings(checkpoint::CheckpointReader(fixture.string()).settings());
  EXPECT_EQ(older.completed_epochs, 0);
  EXPECT_EQ(older.step_in_epoch, 7);
  EXPECT_EQ(older.epoch_examples, -1) << "not saved by that version";

  // The fixture's run, as its command line in tests/fixtures/seq2seq_checkpoint/README.md.
  const auto straight = test::fresh_temp_dir("seq2seq_older_straight");
  auto setup = test::two_short_epochs(test::tiny_seq2seq_setup(straight));
  setup.model.transformer().embedding_size(8).ffn_multiplier(1);
  setup.max_tokens = 200;
  setup.run.max_iters = 9;
  const auto run = test::expect_resume_to_stand_where_straight_stands(setup, fixture, "seq2seq_older_resumed",
                                                                      [](const auto& s) { return train_seq2seq(s); });
  EXPECT_GT(run.straight.epoch_examples, 0);
  EXPECT_EQ(run.resumed.completed_epochs, 0);
  EXPECT_EQ(run.resumed.step_in_epoch, 9);
  EXPECT_EQ(run.resumed.epoch_loss_weight, 9.0);  // the epoch's mean over its steps, the older 7 included
  EXPECT_TRUE(std::isfinite(run.resumed.train_loss));
}

// Static-shape batches (every batch batch_size rows, the short last one filled with masked
// rows; with length buckets a few fixed widths) train to the same weights as the batches
// without them, for <pad> padding with length buckets and label smoothing, and for
// DLStudio's loss with its EOS padding. Dropout off: padded rows would draw other masks.
TEST(Seq2SeqTrainer, StaticShapesTrainToTheSameWeights) {
  struct Case {
    const char* name;
    bool dlstudio_loss;
  };
  for (const auto& c : {Case{"pad", false}, Case{"eos", true}}) {
    std::vector<Seq2SeqTrainResult> results;
    for (const bool static_shapes : {false, true}) {
      const auto run = test::fresh_temp_dir(std::string("seq2seq_static_") + c.name + (static_shapes ? "_on" : "_off"));
      auto setup = test::tiny_seq2seq_setup(run);
      setup.model.transformer().dropout(0.0);
      setup.epochs = 1;
      setup.samples = 0;
      setup.bleu_sentences = 10;
      setup.dlstudio_loss = c.dlstudio_loss;
      setup.length_buckets = !c.dlstudio_loss;  // (refused with DLStudio's loss)
      setup.label_smoothing = c.dlstudio_loss ? 0.0 : 0.1;
      setup.static_shapes = static_shapes;
      results.push_back(train_seq2seq(setup, {}));
    }
    ASSERT_EQ(results[0].iterations, results[1].iterations) << c.name;
    EXPECT_NEAR(results[0].final_loss, results[1].final_loss, 1e-5 * results[0].final_loss) << c.name;
    EXPECT_NEAR(results[0].val_loss, results[1].val_loss, 1e-4 * results[0].val_loss) << c.name;
    const auto model_a = load_seq2seq_checkpoint(results[0].checkpoints.back()).model;
    const auto model_b = load_seq2seq_checkpoint(results[1].checkpoints.back()).model;
    const auto a = saved_parameters(model_a.module()), b = saved_parameters(model_b.module());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      // A key's bias adds the same number to all of a query's scores, which the softmax
      // ignores: its gradient is 0 up to rounding, and Adam turns that noise into steps of
      // the learning rate's size in either direction. Every other weight must agree.
      if (a[i].first.find("WK.bias") != std::string::npos) continue;
      EXPECT_TRUE(torch::allclose(a[i].second, b[i].second, 1e-4, 1e-5))
          << c.name << ": " << a[i].first << " differs by " << (a[i].second - b[i].second).abs().max().item<double>();
    }
  }
}

// --tf32 is LibTorch's process-wide switch: a run sets it as it asks, so that the next run of
// the process (a test, a sweep) does not inherit it. On the CPU it changes no product.
TEST(Seq2SeqTrainer, Tf32IsSetForEachRunAsItAsks) {
  for (const bool tf32 : {true, false}) {
    at::globalContext().setAllowTF32CuBLAS(!tf32);
    auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir(std::string("seq2seq_tf32_") + (tf32 ? "on" : "off")));
    setup.run.max_iters = 1;
    setup.samples = 0;
    setup.bleu_sentences = 5;
    setup.run.tf32 = tf32;
    train_seq2seq(setup, {});
    EXPECT_EQ(at::globalContext().allowTF32CuBLAS(), tf32);
  }
}

// The loop reads each step's loss from the device only when the progress line, a step row or
// the epoch's end needs it (no host synchronisation per step on a GPU). Read after every step
// (--log-every 1, what the loop did before) or only at the epoch's end, the run is the same:
// loss_steps.csv, the epoch's mean loss (the mean of its steps' losses) and the weights.
TEST(Seq2SeqTrainer, LossesReadAtTheEpochsEndEqualThoseReadEveryStep) {
  std::vector<fs::path> runs;
  std::vector<Seq2SeqTrainResult> results;
  for (const std::int64_t log_every : {1, 0}) {
    runs.push_back(test::fresh_temp_dir("seq2seq_loss_read_" + std::to_string(log_every)));
    auto setup = test::tiny_seq2seq_setup(runs.back());
    setup.epochs = 2;
    setup.samples = 0;
    setup.bleu_sentences = 10;
    setup.run.log_every = log_every;
    results.push_back(train_seq2seq(setup, {}));
  }
  const auto every = metric_rows(runs[0], "loss_steps.csv"), end = metric_rows(runs[1], "loss_steps.csv");
  ASSERT_EQ(every.size(), static_cast<std::size_t>(results[0].iterations) + 1);
  ASSERT_EQ(every.size(), end.size());
  for (std::size_t i = 1; i < every.size(); ++i) EXPECT_EQ(every[i], end[i]) << "row " << i;
  // The last epoch's mean loss: the mean of its steps' losses, in both runs.
  const auto steps_per_epoch = results[0].iterations / 2;
  double sum = 0;
  for (std::size_t i = static_cast<std::size_t>(steps_per_epoch) + 1; i < every.size(); ++i) sum += number(every[i][1]);
  const double mean = sum / static_cast<double>(steps_per_epoch);
  EXPECT_NEAR(results[0].final_loss, mean, 1e-5 * mean);
  EXPECT_EQ(results[0].final_loss, results[1].final_loss);
  const auto epoch_loss = [](const fs::path& run) {
    std::vector<double> losses;
    for (const auto& row : metric_rows(run)) {
      if (row[0] == "epoch") losses.push_back(number(row[3]));
    }
    return losses;
  };
  EXPECT_EQ(epoch_loss(runs[0]), epoch_loss(runs[1]));
  const auto a = weights_of(results[0].checkpoints.back()), b = weights_of(results[1].checkpoints.back());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "parameter " << i;
}

// A run begun before metrics.csv had the sacreBLEU and chrF columns, resumed now: the file is
// rewritten under the new header, its rows keeping their values with the new fields empty,
// and the rows written after the resume carry the new scores.
TEST(Seq2SeqTrainer, ResumeRewritesAnOlderMetricsHeader) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_old_metrics");
  auto setup = test::two_short_epochs(test::tiny_seq2seq_setup(run));
  setup.run.max_iters = 40;  // into the second epoch of about 37 steps
  train_seq2seq(setup, {});
  // The file as an older run wrote it: every row without its last two fields (and no
  // "final" row, which such runs did not write).
  std::string old_text;
  for (auto row : metric_rows(run)) {
    if (row[0] == "final") continue;
    row.resize(9);
    for (std::size_t i = 0; i < row.size(); ++i) old_text += row[i] + (i + 1 < row.size() ? "," : "\n");
  }
  util::write_text_atomically((run / "metrics.csv").string(), old_text);
  const auto old_rows = metric_rows(run);

  setup.run.resume = run.string();
  setup.run.max_iters = 0;
  const auto resumed = train_seq2seq(setup);
  EXPECT_EQ(resumed.stopped_by, "epochs");
  const auto rows = metric_rows(run);
  ASSERT_EQ(rows.front().size(), 11u);
  EXPECT_EQ(rows.front()[9], "val_sacrebleu");
  EXPECT_EQ(rows.front()[10], "val_chrf");
  ASSERT_GT(rows.size(), old_rows.size());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 11u) << "row " << i;
    if (i < old_rows.size()) {
      EXPECT_EQ(std::vector<std::string>(rows[i].begin(), rows[i].begin() + 9), old_rows[i]) << "row " << i;
      EXPECT_EQ(rows[i][9], "");
      EXPECT_EQ(rows[i][10], "");
    }
  }
  ASSERT_EQ(rows.back()[0], "epoch");
  EXPECT_NEAR(number(rows.back()[9]), resumed.val_sacrebleu, 1e-5 * resumed.val_sacrebleu);
  EXPECT_NEAR(number(rows.back()[10]), resumed.val_chrf, 1e-5 * resumed.val_chrf);
}

// The tiny run stopped after 2 steps (one checkpoint), in a fresh directory named after `name`;
// its settings, set to resume it.
settings::Seq2SeqTrainSettings two_steps_to_resume(const std::string& name) {
  auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir(name));
  setup.run.max_iters = 2;
  setup.samples = 0;
  train_seq2seq(setup, {});
  setup.run.resume = setup.run.run_dir;
  return setup;
}

TEST(Seq2SeqTrainer, ResumeRefusesAnotherModel) {
  auto setup = two_steps_to_resume("seq2seq_trainer_other_model");
  setup.model.transformer().embedding_size(64);
  try {
    train_seq2seq(setup);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("differs"), std::string::npos) << error.what();
  }
}

// The checkpoints seq2seq_train opened for its settings -- --resume's, --init-from's -- are the
// ones the trainer reads, not read again: each is damaged in place once opened, and the run
// still starts from it, where a start that opened it again is refused.
TEST(Seq2SeqTrainer, TakesTheCheckpointsTheProgramOpened) {
  auto setup = two_steps_to_resume("seq2seq_trainer_opened");
  const std::string run = setup.run.run_dir;
  setup.run.max_iters = 4;
  checkpoint::OpenedCheckpoints opened;
  opened.resume.open(run, checkpoint::kSeq2SeqKind);
  test::damage_in_place(latest_checkpoint(run));
  const auto error = test::error_of([&] { train_seq2seq(setup); });
  EXPECT_NE(error.find("corrupt checkpoint"), std::string::npos) << "opened again: " << error;
  const auto resumed = train_seq2seq(setup, {}, std::move(opened));
  EXPECT_EQ(resumed.stopped_by, "max-iters");
  EXPECT_EQ(resumed.iterations, 4);

  const auto child_dir = test::fresh_temp_dir("seq2seq_trainer_opened_child");
  auto child = test::tiny_seq2seq_setup(child_dir);
  child.run.max_iters = 1;
  child.samples = 0;
  child.run.init_from = run;
  checkpoint::OpenedCheckpoints parent;
  parent.init_from.open(run, "");
  test::damage_in_place(latest_checkpoint(run));
  EXPECT_NE(test::error_of([&] { train_seq2seq(child); }).find("corrupt checkpoint"), std::string::npos);
  EXPECT_EQ(train_seq2seq(child, {}, std::move(parent)).stopped_by, "max-iters");
}

TEST(Seq2SeqTrainer, DryRunReportsSizesAndWritesNoCheckpoint) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_dry");
  auto setup = test::tiny_seq2seq_setup(run);
  setup.run.dry_run = true;
  const auto result = train_seq2seq(setup);
  EXPECT_EQ(result.stopped_by, "dry-run");
  EXPECT_EQ(result.iterations, 0);
  EXPECT_TRUE(result.checkpoints.empty());
  EXPECT_GT(result.encoder_parameters, 0);
  EXPECT_GT(result.decoder_parameters, result.encoder_parameters) << "the decoder adds cross-attention";
  EXPECT_GT(result.parameters, result.encoder_parameters + result.decoder_parameters)
      << "the word embeddings are trained";
  EXPECT_THROW(find_checkpoints(run.string()), std::runtime_error);
}

TEST(Seq2SeqTrainer, DivergenceStopsWithTheLastGoodCheckpoint) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_diverges");
  auto setup = test::tiny_seq2seq_setup(run);
  setup.epochs = 4;
  setup.samples = 0;
  setup.run.max_iters = 3;
  const auto before = train_seq2seq(setup, {});
  ASSERT_EQ(before.checkpoints.size(), 1u);
  // Resume with an absurd learning rate: the weights blow up within a few steps.
  setup.run.max_iters = 0;
  setup.schedule.kind = settings::ScheduleKind::kConstant;
  setup.schedule.base_lr = 1e30;
  setup.optimizer.clip_grad_norm = 0;
  setup.run.resume = run.string();
  try {
    train_seq2seq(setup);
    FAIL() << "expected the loss to become NaN or infinite";
  } catch (const Seq2SeqDiverged& error) {
    EXPECT_NE(std::string(error.what()).find(before.checkpoints.back()), std::string::npos) << error.what();
  }
  EXPECT_EQ(latest_checkpoint(run.string()), before.checkpoints.back());
}

// A time budget far shorter than the epochs: the cosine is laid out over the steps that fit,
// so the last steps train near the schedule's floor, not at the peak.
struct BudgetedRun {
  double first_lr = 0, peak_lr = 0, last_lr = 0;  // of metrics.csv's step rows
  double limit_s = 0;                             // the checkpoint's budget
  std::int64_t end_step = 0;                      // and its schedule's end
};

BudgetedRun budgeted_run(const fs::path& run_dir, const std::string& checkpoint) {
  BudgetedRun run;
  for (const auto& row : metric_rows(run_dir)) {
    if (row[0] != "step") continue;
    const double lr = number(row[4]);
    if (run.first_lr == 0) run.first_lr = lr;
    run.peak_lr = std::max(run.peak_lr, lr);
    run.last_lr = lr;
  }
  const checkpoint::CheckpointReader reader(checkpoint, "seq2seq");
  const auto budget = util::KeyValues::from_text(reader.text("time_budget"), checkpoint);
  run.limit_s = budget.get_double("limit_s");
  run.end_step = budget.get_int("end_step");
  return run;
}

settings::Seq2SeqTrainSettings budgeted_setup(const fs::path& run_dir, double limit_s) {
  auto setup = test::tiny_seq2seq_setup(run_dir);
  setup.epochs = 1000;  // 37 steps each: far more than fit
  setup.schedule.warmup_steps = 5;
  setup.run.time_limit_s = limit_s;
  setup.run.log_every = 1;
  setup.samples = 0;
  setup.bleu_sentences = 10;
  setup.run.keep_last = 1;
  return setup;
}

TEST(Seq2SeqTrainer, TimeLimitEndsTheCosineAtItsFloor) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_budget");
  const auto setup = budgeted_setup(run, 5.0);
  const auto result = train_seq2seq(setup, {});
  ASSERT_EQ(result.stopped_by, "time-limit");
  const double peak = setup.schedule.base_lr;
  const auto budget = budgeted_run(run, result.checkpoints.back());
  EXPECT_GT(budget.peak_lr, 0.5 * peak) << "warmed up";
  EXPECT_LT(budget.last_lr, 0.1 * peak) << "ended near the floor, " << result.iterations << " steps";
  EXPECT_EQ(budget.limit_s, 5.0);
  EXPECT_LT(budget.end_step, 1000 * 37) << "laid out over the budget, not the epochs";
  EXPECT_NEAR(static_cast<double>(budget.end_step), static_cast<double>(result.iterations),
              0.25 * static_cast<double>(result.iterations));
}

// The budget is the whole run's: a resume keeps it and trains what is left, ending at the
// floor; a resume with another --time-limit replaces it (still counted from the run's start).
TEST(Seq2SeqTrainer, ResumeKeepsTheRunsTimeBudget) {
  const auto run = test::fresh_temp_dir("seq2seq_trainer_budget_resume");
  auto setup = budgeted_setup(run, 6.0);
  setup.run.max_iters = 30;  // stopped early, as by a signal
  const auto first = train_seq2seq(setup, {});
  ASSERT_EQ(first.stopped_by, "max-iters");
  EXPECT_EQ(budgeted_run(run, first.checkpoints.back()).limit_s, 6.0);

  setup.run.max_iters = 0;
  setup.run.time_limit_s = 0;  // not given: the run's
  setup.run.resume = run.string();
  const auto second = train_seq2seq(setup);
  ASSERT_EQ(second.stopped_by, "time-limit");
  EXPECT_LT(second.wall_s, 6.0) << "only what was left of the run's budget";
  const auto budget = budgeted_run(run, second.checkpoints.back());
  EXPECT_EQ(budget.limit_s, 6.0);
  EXPECT_LT(budget.last_lr, 0.1 * setup.schedule.base_lr);

  setup.run.time_limit_s = 1.0;  // already spent: one step, then stop
  const auto third = train_seq2seq(setup);
  EXPECT_EQ(third.stopped_by, "time-limit");
  EXPECT_EQ(third.iterations, second.iterations + 1);
  EXPECT_EQ(budgeted_run(run, third.checkpoints.back()).limit_s, 1.0);
}

}  // namespace
}  // namespace dls::train
