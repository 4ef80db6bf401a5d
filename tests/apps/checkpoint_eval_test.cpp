// checkpoint_eval on seq2seq runs: the BLEU and loss of every checkpoint equal what training
// measured on the same validation split, divergence marking, bleu.csv, samples in
// DLStudio's format, translating a user's sentences (unknown words included), attention
// maps, scoring files, and one-line errors.
#include "seq2seq_eval.h"

#include <gtest/gtest.h>


#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include "dls/train/run_directory.h"
#include "dls/train/seq2seq_checkpoint.h"
#include "dls/train/seq2seq_trainer.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"
#include "support/program_run.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;

const std::string kSampleCorpus = dls::testing::source_dir() + "/data/sample_en_es.tsv";

// Three epochs of a tiny model on the sample corpus, a checkpoint after each, BLEU measured
// by training on the whole validation split.
const fs::path& trained_seq2seq_run() {
  static const fs::path run = [] {
    const auto dir = test::fresh_temp_dir("checkpoint_eval_run");
    auto setup = train::seq2seq_preset("cpu", Variant::kPreLN);
    setup.model.transformer().embedding_size(32).num_heads(2).ffn_multiplier(2);
    setup.model.num_encoders(1).num_decoders(1);
    auto& t = setup.training;
    t.data_path = kSampleCorpus;
    t.validation_pairs = 100;
    t.batch_size = 32;
    t.epochs = 3;
    t.schedule.warmup_steps = 20;
    t.schedule.base_lr = 3e-3;
    t.run_dir = dir.string();
    t.checkpoint_every = 1;
    t.samples = 0;
    t.bleu_sentences = 0;
    train::train_seq2seq(setup.model, t, train::Seq2SeqRunControl{});
    return dir;
  }();
  return run;
}

TEST(CheckpointEval, BleuAndLossOfEveryCheckpointEqualTrainingsOwn) {
  const auto files = train::find_checkpoints(trained_seq2seq_run().string());
  ASSERT_EQ(files.size(), 3u);
  Seq2SeqEvalRequest request;
  request.output_dir = test::fresh_temp_dir("checkpoint_eval_out").string();
  request.samples = 3;
  request.threads = 1;
  ::testing::internal::CaptureStdout();
  const int rc = run_seq2seq_evaluation(files, request);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << out;

  // bleu.csv: a header and one row per checkpoint, in epoch order, matching the numbers the
  // trainer recorded in each checkpoint for the same split and greedy decoding.
  const std::string csv = util::read_file(request.output_dir + "/bleu.csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line.rfind("checkpoint,epochs_done,step,bleu,", 0), 0u) << line;
  std::vector<double> bleu;
  for (const auto& file : files) {
    ASSERT_TRUE(std::getline(lines, line));
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 15u) << line;
    EXPECT_EQ(f[0], file);
    const auto info = train::load_seq2seq_checkpoint(file).info;
    EXPECT_NEAR(std::stod(f[1]), static_cast<double>(info.progress.epoch - 1), 1e-9);  // whole epochs
    EXPECT_EQ(std::stoll(f[2]), info.progress.global_step);
    EXPECT_NEAR(std::stod(f[3]), info.progress.val_bleu, 1e-12) << file;
    bleu.push_back(std::stod(f[3]));
    EXPECT_NEAR(std::stod(f[12]), info.progress.val_loss, 1e-5) << file;
    EXPECT_EQ(f[14], "0");
  }
  EXPECT_GT(bleu.back(), bleu.front());  // it learns
  EXPECT_TRUE(fs::exists(request.output_dir + "/bleu_vs_epoch.png"));

  // The table names every checkpoint and the best; three samples in DLStudio's format.
  for (const auto& file : files) EXPECT_NE(out.find(fs::path(file).filename().string()), std::string::npos);
  EXPECT_NE(out.find("Best checkpoint: "), std::string::npos) << out;
  EXPECT_NE(out.find("BLEU = "), std::string::npos) << out;  // the sacreBLEU-style column
  const std::regex sample(R"(The translation produced by TransformerPreLN: +SOS( .*)? EOS +\[(CORRECT|WRONG)\])");
  std::ptrdiff_t samples = std::distance(std::sregex_iterator(out.begin(), out.end(), sample), std::sregex_iterator());
  EXPECT_EQ(samples, 3) << out;
  const std::regex input_line("The input sentence pair: ");
  EXPECT_EQ(std::distance(std::sregex_iterator(out.begin(), out.end(), input_line), std::sregex_iterator()), 3);
}

TEST(CheckpointEval, DivergenceIsACollapseAfterARealScore) {
  std::vector<CheckpointBleu> r(6);
  const double bleu[] = {0.002, 0.10, 0.25, 0.04, 0.30, 0.0};
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].bleu = bleu[i];
    r[i].val_loss = 1.0;
  }
  mark_diverged(r);
  EXPECT_FALSE(r[0].diverged);  // nothing before it
  EXPECT_FALSE(r[1].diverged);
  EXPECT_FALSE(r[2].diverged);
  EXPECT_TRUE(r[3].diverged);   // 0.04 < 0.25 / 5
  EXPECT_FALSE(r[4].diverged);  // recovered
  EXPECT_TRUE(r[5].diverged);
  EXPECT_EQ(best_checkpoint(r), 4u);

  // Scores that never got going are not a divergence; a NaN loss always is.
  std::vector<CheckpointBleu> low(3);
  low[0].bleu = 0.008;
  low[1].bleu = 0.0;
  low[2].val_loss = NAN;
  mark_diverged(low);
  EXPECT_FALSE(low[1].diverged);
  EXPECT_TRUE(low[2].diverged);
  EXPECT_EQ(best_checkpoint(low), 0u);
}

test::ProgramRun run_checkpoint_eval(const std::string& args, const std::string& name,
                                     const std::string& input = "") {
  return test::run_program("apps/checkpoint_eval", "--threads 1 " + args, "checkpoint_eval_app_" + name, input);
}

TEST(CheckpointEvalApp, TranslatesSentencesAndReportsUnknownWords) {
  const auto run = run_checkpoint_eval(trained_seq2seq_run().string() +
                                           " --translate \"I'm here.\" --translate \"the zyxwv is here\"",
                                       "translate");
  ASSERT_EQ(run.status, 0) << run.err;
  std::istringstream lines(run.out);
  std::string first, second, third;
  EXPECT_TRUE(std::getline(lines, first));
  EXPECT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, third)) << run.out;  // one line per sentence
  EXPECT_NE(run.err.find("unknown words (translated as <unk>): zyxwv"), std::string::npos) << run.err;

  // The same sentences typed into the interactive mode give the same translations; a
  // sentence too long for the model is an error for that line only.
  const auto interactive = run_checkpoint_eval(trained_seq2seq_run().string() + " --interactive", "interactive",
                                               "I'm here.\n\none two three four five six seven eight nine\n"
                                               "the zyxwv is here\n");
  EXPECT_EQ(interactive.status, 1);
  EXPECT_EQ(interactive.out, first + "\n" + second + "\n");
  EXPECT_NE(interactive.err.find("9 words, but this model translates at most 8"), std::string::npos)
      << interactive.err;
}

TEST(CheckpointEvalApp, WritesAttentionMapsOfEveryLayerAndHead) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_attention");
  const auto run = run_checkpoint_eval(trained_seq2seq_run().string() + " --translate \"i am hungry\" --attention-maps " +
                                           dir.string(),
                                       "attention");
  ASSERT_EQ(run.status, 0) << run.err;
  // One encoder and one decoder layer with two heads: 2 + 2 + 2 maps.
  for (const char* kind : {"encoder_self", "decoder_self", "cross"}) {
    for (int head = 1; head <= 2; ++head) {
      const auto png = dir / (std::string(kind) + "_layer1_head" + std::to_string(head) + ".png");
      EXPECT_TRUE(fs::exists(png)) << png;
      EXPECT_EQ(util::read_file(png.string()).substr(1, 3), "PNG");
    }
  }
}

TEST(CheckpointEvalApp, BeamAndDLStudioDecodingAndJson) {
  const auto out_dir = test::fresh_temp_dir("checkpoint_eval_json");
  const auto beam = run_checkpoint_eval(trained_seq2seq_run().string() + " --beam 3 --limit 20 --json --output-dir " +
                                            out_dir.string(),
                                        "beam");
  ASSERT_EQ(beam.status, 0) << beam.err;
  EXPECT_EQ(beam.out.front(), '{');
  EXPECT_NE(beam.out.find("\"decode\":\"beam\""), std::string::npos) << beam.out;
  EXPECT_NE(beam.out.find("\"sentences\":20"), std::string::npos) << beam.out;
  EXPECT_NE(beam.out.find("\"best\":"), std::string::npos);
  const auto oneshot = run_checkpoint_eval(trained_seq2seq_run().string() + " --dlstudio-decode --limit 20 --output-dir " +
                                               out_dir.string(),
                                           "oneshot");
  ASSERT_EQ(oneshot.status, 0) << oneshot.err;
  EXPECT_NE(oneshot.out.find("dlstudio decoding"), std::string::npos) << oneshot.out;
}

TEST(CheckpointEvalApp, ScoresTextFiles) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_score");
  test::write_bytes(dir / "hyp.txt", "he read the book because he was interested in world history\n");
  test::write_bytes(dir / "ref.txt", "he was interested in world history because he read the book\n");
  const auto run = run_checkpoint_eval("--score " + (dir / "hyp.txt").string() + " --ref " +
                                           (dir / "ref.txt").string() + " --json",
                                       "score");
  ASSERT_EQ(run.status, 0) << run.err;
  // NLTK: corpus_bleu([[ref]], [hyp]) = 0.7400828044922853 for this pair.
  const std::regex bleu(R"("bleu":([0-9.]+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.out, m, bleu)) << run.out;
  EXPECT_NEAR(std::stod(m[1].str()), 0.7400828044922853, 1e-12);
  EXPECT_NE(run.out.find("\"hyp_len\":11"), std::string::npos) << run.out;
}

TEST(CheckpointEvalApp, BadInputIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_bad");
  test::expect_one_line_error(run_checkpoint_eval((dir / "nowhere").string(), "nowhere"), "nowhere");
  test::write_bytes(dir / "broken.pt", "not a checkpoint");
  test::expect_one_line_error(run_checkpoint_eval((dir / "broken.pt").string(), "broken"), "broken.pt");
  // A truncated copy of a real checkpoint.
  const auto real = train::find_checkpoints(trained_seq2seq_run().string()).back();
  const std::string bytes = util::read_file(real);
  test::write_bytes(dir / "truncated.pt", bytes.substr(0, bytes.size() / 2));
  test::expect_one_line_error(run_checkpoint_eval((dir / "truncated.pt").string(), "truncated"), "truncated.pt");
  // A directory without checkpoints.
  fs::create_directories(dir / "empty_run" / "checkpoints");
  test::expect_one_line_error(run_checkpoint_eval((dir / "empty_run").string(), "empty_run"), "no checkpoint files");
  // The training corpus is gone and no other was given.
  fs::create_directories(dir / "moved" / "checkpoints");
  const auto moved = run_checkpoint_eval(real + " --data " + (dir / "missing.tsv").string(), "moved");
  test::expect_one_line_error(moved, "missing.tsv");
  test::expect_one_line_error(run_checkpoint_eval(real + " --attention-maps " + dir.string(), "maps"), "--translate");
}

TEST(CheckpointEvalApp, ACorruptCheckpointAmongGoodOnesIsSkipped) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_corrupt") / "checkpoints";
  fs::create_directories(dir);
  const auto files = train::find_checkpoints(trained_seq2seq_run().string());
  fs::copy_file(files[0], dir / fs::path(files[0]).filename());
  fs::copy_file(files[2], dir / fs::path(files[2]).filename());
  const std::string bytes = util::read_file(files[1]);
  test::write_bytes(dir / fs::path(files[1]).filename(), bytes.substr(0, bytes.size() - 100));
  const auto run = run_checkpoint_eval(dir.parent_path().string() + " --limit 30", "corrupt");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("skipped: " + (dir / fs::path(files[1]).filename()).string()), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("skipped (unreadable): "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(fs::path(files[0]).filename().string()), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(fs::path(files[2]).filename().string()), std::string::npos) << run.out;
}

TEST(CheckpointEvalApp, TestFileWithMalformedLinesIsScoredAndTheDropsReported) {
  const auto dir = test::fresh_temp_dir("checkpoint_eval_testfile");
  test::write_bytes(dir / "test.tsv",
                    "I am here.\tEstoy aquí.\n"
                    "no tab on this line\n"
                    "She is tall.\tElla es alta.\tCC-BY 2.0 (France) Attribution: tatoeba.org\n"
                    "bad\xff bytes\tmalos\n");
  const auto run = run_checkpoint_eval(trained_seq2seq_run().string() + " --test " + (dir / "test.tsv").string(), "testfile");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("(2 pairs)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 malformed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1 invalid UTF-8"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace dls::apps
