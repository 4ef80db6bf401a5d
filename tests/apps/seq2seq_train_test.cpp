// seq2seq_train end to end: help, one-line errors for bad input, a dry run, a short run
// with --json, and a resumed run.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const std::string kSampleCorpus = std::string(DLS_SOURCE_DIR) + "/data/sample_en_es.tsv";
// A small model so that every run takes a second or two.
const std::string kSmall =
    " --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2"
    " --validation-pairs 100 --bleu-sentences 30 --samples 3 --log-every 10";

struct Run {
  int status = -1;
  std::string out, err;
};

Run run_seq2seq_train(const std::string& args, const std::string& name) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_" + name + "_io");
  const auto out = dir / "stdout", err = dir / "stderr";
  // The start-up report is logged at info level, which the test environment turns off.
  const std::string command = "DLS_LOG_LEVEL=info " + std::string(DLS_BINARY_DIR) +
                              "/apps/seq2seq_train --threads 1 " + args +
                              " >" + out.string() + " 2>" + err.string();
  Run run;
  const int raw = std::system(command.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = util::read_file(out.string());
  run.err = util::read_file(err.string());
  return run;
}

std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

void expect_one_line_error(const Run& run, const std::string& part) {
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(part), std::string::npos) << run.err;
}

TEST(Seq2SeqTrainApp, HelpDocumentsTheFlagsInGroups) {
  const auto run = run_seq2seq_train("--help", "help");
  EXPECT_EQ(run.status, 0);
  for (const auto* text : {"Data:", "Model:", "Training:", "Output:", "--data", "--run-dir", "--epochs",
                           "--max-iters", "--time-limit", "--resume", "--dry-run", "--json", "--preset",
                           "--variant", "--layout", "--label-smoothing", "--clip-grad-norm", "--schedule"}) {
    EXPECT_NE(run.out.find(text), std::string::npos) << text;
  }
}

TEST(Seq2SeqTrainApp, BadInputIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("seq2seq_train_app_bad");
  expect_one_line_error(run_seq2seq_train("--data " + (dir / "missing.tsv").string(), "missing"), "missing.tsv");
  test::write_bytes(dir / "empty.tsv", "");
  expect_one_line_error(run_seq2seq_train("--data " + (dir / "empty.tsv").string(), "empty"), "empty.tsv");
  test::write_bytes(dir / "garbage.tsv", "no tab here\nnor here\n\xff\xfe\tbad\n");
  expect_one_line_error(run_seq2seq_train("--data " + (dir / "garbage.tsv").string(), "garbage"), "garbage.tsv");
  test::write_bytes(dir / "broken.pt", "not a checkpoint");
  const auto broken = run_seq2seq_train("--resume " + (dir / "broken.pt").string() + " --data " + kSampleCorpus,
                                        "broken");
  expect_one_line_error(broken, "broken.pt");
  EXPECT_FALSE(fs::exists(dir / "checkpoints")) << "nothing written for a failed start";
}

TEST(Seq2SeqTrainApp, DryRunPrintsTheStartUpReport) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_dry");
  const auto run = run_seq2seq_train("--data " + kSampleCorpus + " --validation-pairs 100 --dry-run --run-dir " +
                                         run_dir.string(), "dry");
  EXPECT_EQ(run.status, 0) << run.err;
  for (const auto* text : {"pairs kept", "vocabulary", "longest English sentence",
                           "Number of learnable params in Master Encoder",
                           "Number of learnable params in Master Decoder", "TransformerFG"}) {
    EXPECT_NE(run.err.find(text), std::string::npos) << text << "\n" << run.err;
  }
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0000.pt"));
}

TEST(Seq2SeqTrainApp, ShortRunPrintsJsonAndResumes) {
  const auto run_dir = test::fresh_temp_dir("seq2seq_train_app_run");
  const auto first = run_seq2seq_train("--data " + kSampleCorpus + kSmall + " --epochs 2 --max-iters 20 --json"
                                       " --run-dir " + run_dir.string(), "first");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(count_lines(first.out), 1u) << "stdout holds the JSON object alone:\n" << first.out;
  for (const auto* key : {"\"pairs_per_s\":", "\"final_loss\":", "\"val_bleu\":", "\"iterations\":20",
                          "\"checkpoints\":[", "\"stopped_by\":\"max-iters\""}) {
    EXPECT_NE(first.out.find(key), std::string::npos) << key << " in " << first.out;
  }
  const auto second = run_seq2seq_train("--resume " + run_dir.string() + " --json", "second");
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("\"stopped_by\":\"epochs\""), std::string::npos) << second.out;
  EXPECT_NE(second.err.find("resuming from"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("The translation produced by TransformerFG"), std::string::npos) << second.err;
  EXPECT_TRUE(fs::exists(run_dir / "metrics.csv"));
  EXPECT_TRUE(fs::exists(run_dir / "bleu.png"));
}

}  // namespace
}  // namespace dls
