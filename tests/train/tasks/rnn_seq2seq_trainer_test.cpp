// The RNN encoder-decoder with attention through the shared training loop and everything
// that reads a seq2seq checkpoint (seq2seq_train --architecture rnn-attention): it learns the
// sample corpus, resumes exactly (teacher forcing's draws included), its checkpoints say what
// they hold, the Translator decodes it and reads its alignment table, checkpoint_eval reports
// and translates it, and what an RNN cannot do is refused in one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/report/sentence_translation.h"
#include "dls/eval/translator.h"
#include "dls/eval/word_alignment.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls::rnn_seq2seq_trainer_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    fields.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// The validation losses of a run's epoch rows of metrics.csv, in order.
std::vector<double> epoch_val_losses(const fs::path& run) {
  std::ifstream in(run / "metrics.csv");
  std::string header;
  std::getline(in, header);
  const auto names = fields_of(header);
  const auto column = static_cast<std::size_t>(std::find(names.begin(), names.end(), "val_loss") - names.begin());
  std::vector<double> losses;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("epoch,", 0) == 0) losses.push_back(std::stod(fields_of(line).at(column)));
  }
  return losses;
}

TEST(RnnSeq2SeqTrainer, LearnsTheSampleCorpusAndItsCheckpointsSayWhatTheyHold) {
  const auto& run = test::trained_rnn_seq2seq_run();
  const auto losses = epoch_val_losses(run);
  ASSERT_EQ(losses.size(), 3u);
  EXPECT_LT(losses.back(), losses.front()) << "the validation loss falls";

  const auto loaded = checkpoint::load_seq2seq_checkpoint(checkpoint::latest_checkpoint(run.string()));
  ASSERT_TRUE(loaded.model.is_rnn());
  EXPECT_EQ(loaded.info.settings.architecture, Architecture::kRnnAttention);
  const auto& config = loaded.model.rnn()->config();
  EXPECT_EQ(config.hidden_size, 32);
  EXPECT_TRUE(config.bidirectional);
  EXPECT_EQ(config.score, AttentionScore::kAdditive);
  EXPECT_EQ(config.placement, AttentionPlacement::kBahdanau);
  EXPECT_EQ(config.target_vocab, static_cast<std::int64_t>(loaded.spanish.size()));
  EXPECT_EQ(config.max_seq_length, loaded.info.settings.model.transformer().max_seq_length());
  EXPECT_EQ(loaded.model.name(), "RNN with Bahdanau attention");
}

TEST(RnnSeq2SeqTrainer, ResumedRunEqualsAnUninterruptedOne) {
  const auto straight = test::fresh_temp_dir("rnn_trainer_straight");
  const auto split = test::fresh_temp_dir("rnn_trainer_split");
  auto setup = test::two_short_epochs(test::tiny_rnn_setup(straight));
  setup.teacher_forcing = 0.5;  // its draws come from the generator a checkpoint restores
  const auto full = train::train_seq2seq(setup);
  setup.run.run_dir = split.string();
  setup.run.max_iters = 13;
  EXPECT_EQ(train::train_seq2seq(setup).stopped_by, "max-iters");
  setup.run.resume = split.string();
  setup.run.max_iters = 0;
  const auto rest = train::train_seq2seq(setup);
  EXPECT_EQ(rest.iterations, full.iterations);
  const auto a = checkpoint::load_seq2seq_checkpoint(full.checkpoints.back());
  const auto b = checkpoint::load_seq2seq_checkpoint(rest.checkpoints.back());
  const auto pa = a.model.module().parameters(), pb = b.model.module().parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::allclose(pa[i], pb[i], 1e-5, 1e-6)) << i;
  EXPECT_NEAR(full.val_loss, rest.val_loss, 1e-5);
  EXPECT_EQ(b.info.settings.teacher_forcing, 0.5);
}

TEST(RnnSeq2SeqTrainer, RefusesWhatAnRnnCannotDo) {
  auto setup = test::tiny_rnn_setup(test::fresh_temp_dir("rnn_trainer_refusals"));
  setup.dlstudio_loss = true;
  try {
    train::train_seq2seq(setup);
    ADD_FAILURE() << "an RNN run with DLStudio's loss";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--dlstudio-loss"), std::string::npos) << error.what();
  }
  setup = test::tiny_rnn_setup(test::fresh_temp_dir("rnn_trainer_init_from"));
  setup.run.init_from = checkpoint::latest_checkpoint(test::trained_seq2seq_run().string());
  try {
    train::train_seq2seq(setup);
    ADD_FAILURE() << "an RNN initialised from a transformer";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--init-from"), std::string::npos) << error.what();
  }
}

// On a GPU, --cuda-graphs auto pads a run's batches to static shapes only when its loss can
// then be recorded: never an RNN's (packed by length on the host) nor token batches.
TEST(RnnSeq2SeqTrainer, ItsLossIsNeverCapturedSoItsBatchesKeepTheirShapes) {
  auto setup = test::tiny_rnn_setup(test::fresh_temp_dir("rnn_trainer_capturable"));
  EXPECT_FALSE(train::seq2seq_loss_capturable(setup));
  setup.architecture = Architecture::kTransformer;
  EXPECT_TRUE(train::seq2seq_loss_capturable(setup));
  setup.max_tokens = 500;
  EXPECT_FALSE(train::seq2seq_loss_capturable(setup));
}

TEST(RnnSeq2SeqTranslator, TranslatesAndReadsTheAlignmentTable) {
  auto translator = eval::Translator::load(test::trained_rnn_seq2seq_run().string());
  EXPECT_FALSE(translator.splits_long_sentences());
  const auto t = translator.translate("I am here.");
  ASSERT_TRUE(t.ok()) << t.error;
  ASSERT_FALSE(t.output_tokens.empty());
  // Scores from the decoding equal the teacher-forced pass's (scores on).
  eval::TranslatorOptions forced;
  forced.ensemble = {test::trained_rnn_seq2seq_run().string()};  // an ensemble scores by a forced pass
  auto twice = eval::Translator::load(test::trained_rnn_seq2seq_run().string(), forced);
  const auto again = twice.translate("I am here.");
  EXPECT_EQ(again.output_tokens, t.output_tokens) << "an ensemble of the model twice is the model";
  EXPECT_NEAR(again.log_probability, t.log_probability, 1e-4);

  const auto maps = translator.attention(t);
  EXPECT_TRUE(maps.recurrent);
  EXPECT_TRUE(maps.encoder_self.empty());
  EXPECT_TRUE(maps.decoder_self.empty());
  ASSERT_EQ(maps.cross.size(), 1u);
  const auto& table = maps.cross.front();  // [1, steps, source]
  EXPECT_EQ(table.size(0), 1);
  EXPECT_EQ(table.size(1), static_cast<std::int64_t>(maps.written.size()));  // a row per word written, and the EOS
  EXPECT_EQ(maps.written.size(), t.output_tokens.size() + 1);
  EXPECT_EQ(table.size(2), static_cast<std::int64_t>(maps.source.size()));
  EXPECT_TRUE(torch::allclose(table.sum(-1), torch::ones({1, table.size(1)}), 1e-4, 1e-4));

  const auto points = translator.alignment(t);
  ASSERT_FALSE(points.empty());
  for (const auto& p : points) {
    EXPECT_LT(p.source, static_cast<int>(t.words.size()));
    EXPECT_LT(p.target, static_cast<int>(t.output_words.size()));
  }
  const auto dir = test::fresh_temp_dir("rnn_alignment_maps");
  const auto files = report::save_attention_maps(maps, dir.string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files.front()).filename(), "alignment_layer1_head1.png");
}

TEST(RnnSeq2SeqApps, CheckpointEvalReportsAndTranslatesAnRnnRun) {
  const auto run = test::trained_rnn_seq2seq_run().string();
  const auto report =
      test::run_program("apps/checkpoint_eval", "--threads 1 " + run + " --limit 20", "rnn_eval_report");
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("RNN with Bahdanau attention"), std::string::npos) << report.out;
  const auto beam =
      test::run_program("apps/checkpoint_eval",
                        "--threads 1 " + run + " --translate \"I am here.\" --beam 3 --n-best 2", "rnn_eval_translate");
  ASSERT_EQ(beam.status, 0) << beam.err;
  EXPECT_EQ(test::lines_of(beam.out).size(), 2u) << beam.out;
  const auto maps = test::fresh_temp_dir("rnn_eval_maps");
  const auto drawn = test::run_program(
      "apps/checkpoint_eval", "--threads 1 " + run + " --translate \"I am here.\" --attention-maps " + maps.string(),
      "rnn_eval_maps");
  ASSERT_EQ(drawn.status, 0) << drawn.err;
  EXPECT_TRUE(fs::exists(maps / "alignment_layer1_head1.png")) << drawn.err;
  test::expect_one_line_error(
      test::run_program("apps/checkpoint_eval", "--threads 1 " + run + " --translate \"I am here.\" --dlstudio-decode",
                        "rnn_eval_one_shot"),
      "one-shot");
}

}  // namespace
}  // namespace dls::rnn_seq2seq_trainer_test
