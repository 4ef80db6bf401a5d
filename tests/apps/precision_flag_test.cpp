// --precision in the programs: unknown names and fp16 on the CPU refused in one line, a bf16
// training run recording its precision in --json, and bf16 decoding of fp32 checkpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <torch/cuda.h>

#include "support/vit_runs.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"

namespace dls {
namespace {

const std::string kPrecisionCorpus = dls::testing::sample_corpus();

test::ProgramRun run_with_precision(const std::string& program, const std::string& args, const std::string& name) {
  return test::run_program("apps/" + program, "--threads 1 " + args, "precision_flag_" + name);
}

TEST(PrecisionFlag, UnknownPrecisionIsRefused) {
  const auto data = test::tiny_fashion_dir("precision_unknown");
  test::expect_one_line_error(
      run_with_precision("vit_train", "--precision fp64 --data-dir " + data.string(), "vit_unknown"), "--precision",
      test::kAnyFailure);
  test::expect_one_line_error(
      run_with_precision("seq2seq_train", "--precision half --data " + kPrecisionCorpus, "seq2seq_unknown"),
      "--precision", test::kAnyFailure);
  test::expect_one_line_error(run_with_precision("checkpoint_eval", "--precision bfloat16 runs/none", "eval_unknown"),
                              "--precision", test::kAnyFailure);
}

TEST(PrecisionFlag, Fp16OnTheCpuIsRefused) {
  const auto data = test::tiny_fashion_dir("precision_fp16");
  const auto run_dir = test::fresh_temp_dir("precision_fp16_run");
  const std::string why = "--precision: fp16 needs --device cuda";
  test::expect_one_line_error(
      run_with_precision("vit_train", "--precision fp16 --data-dir " + data.string() + " --run-dir " + run_dir.string(),
                         "vit_fp16"),
      why);
  test::expect_one_line_error(
      run_with_precision("seq2seq_train",
                         "--precision fp16 --data " + kPrecisionCorpus + " --run-dir " + run_dir.string(), "s2s_fp16"),
      why);
  test::expect_one_line_error(
      run_with_precision("checkpoint_eval", "--precision fp16 " + run_dir.string(), "eval_fp16"), why);
  EXPECT_FALSE(std::filesystem::exists(run_dir / "checkpoints"));  // refused before training
}

// A bf16 ViT run says so in its JSON; its fp32 checkpoints are evaluated in bf16 and fp32.
// The device each trainer trains on is the --device it was given, handed to the start-up's
// placement: without a GPU, --device cuda is refused by all three (one line) before any data
// is read; with one, the dry run succeeds on it. Pins on a CPU machine what a GPU run relies on.
TEST(PrecisionFlag, EveryTrainerPlacesItsRunOnTheDeviceAsked) {
  const auto data = test::tiny_fashion_dir("device_flag");
  const bool gpu = torch::cuda::is_available();
  for (const auto& [program, args] : std::vector<std::pair<std::string, std::string>>{
           {"seq2seq_train", "--data " + kPrecisionCorpus + " --validation-pairs 100"},
           {"lm_train", "--data " + kPrecisionCorpus},
           {"vit_train", "--data-dir " + data.string()}}) {
    const auto run = run_with_precision(program, args + " --device cuda --dry-run", program + "_cuda");
    if (gpu) {
      EXPECT_EQ(run.status, 0) << program << ": " << run.err;
    } else {
      test::expect_one_line_error(run, "--device cuda: this LibTorch has no CUDA or no GPU is visible");
    }
  }
}

TEST(PrecisionFlag, Bf16RunRecordsItsPrecisionAndEvaluates) {
  const auto data = test::tiny_fashion_dir("precision_bf16");
  const auto run_dir = test::fresh_temp_dir("precision_bf16_run");
  const auto trained =
      run_with_precision("vit_train",
                         "--precision bf16 --json --data-dir " + data.string() + " --run-dir " + run_dir.string() +
                             " --epochs 1 --embedding-size 16 --heads 2 --encoders 1 --stem 4,8/2 --patch-size 7"
                             " --batch-size 16 --log-level warn",
                         "vit_bf16");
  ASSERT_EQ(trained.status, 0) << trained.err;
  EXPECT_NE(trained.out.find("\"precision\":\"bf16\""), std::string::npos) << trained.out;
  for (const char* precision : {"bf16", "fp32"}) {
    const auto evaluated = run_with_precision(
        "checkpoint_eval",
        std::string("--precision ") + precision + " --json --data-dir " + data.string() + " " + run_dir.string(),
        std::string("vit_eval_") + precision);
    ASSERT_EQ(evaluated.status, 0) << evaluated.err;
    EXPECT_NE(evaluated.out.find("accuracy"), std::string::npos) << evaluated.out;
  }
}

TEST(PrecisionFlag, Bf16TranslatesWithAnFp32Checkpoint) {
  const auto translated = run_with_precision(
      "checkpoint_eval", test::trained_seq2seq_run().string() + " --precision bf16 --translate \"i am hungry\"",
      "translate_bf16");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_FALSE(translated.out.empty());
}

}  // namespace
}  // namespace dls
