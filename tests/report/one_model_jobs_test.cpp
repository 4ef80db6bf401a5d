// checkpoint_eval's jobs of one model -- generate (a language model's), classify (a ViT's) --
// read their checkpoint once, for the run's kind and for the model: generate read the newest
// for the kind, then best.pt to learn its path, then best.pt again for the model; classify read
// the newest for the kind, then best.pt.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint.h"
#include "dls/report/eval_jobs.h"
#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/lm_trainer.h"
#include "support/image_files.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls::report {
namespace {

// run_eval of `job` (kAny: the one-command form) on `run`; returns how many checkpoint files it
// opened, and its output in `out`.
std::uint64_t files_read(EvalJob job, EvalCommand command, const std::string& run, std::string& out) {
  command.path = run;
  command.threads = 1;
  command.json = true;
  std::istringstream in;
  std::ostringstream printed, messages;
  const auto opened_before = checkpoint::CheckpointReader::files_opened();
  EXPECT_EQ(run_eval(job, command, in, printed, messages).status, 0) << messages.str();
  out = printed.str();
  return checkpoint::CheckpointReader::files_opened() - opened_before;
}

TEST(OneModelJobs, GenerateReadsItsCheckpointOnce) {
  auto settings = train::lm_preset("tiny");
  settings.data.path = testing::sample_corpus();
  settings.epochs = 1;
  settings.run.run_dir = test::fresh_temp_dir("one_model_jobs_lm").string();
  settings.run.max_iters = 4;
  train::train_lm(settings);
  EvalCommand generate;
  generate.lm.prompts = {"tengo"};
  generate.lm.sampling.temperature = 0;
  std::string verb_out, flag_out;
  EXPECT_EQ(files_read(EvalJob::kGenerate, generate, settings.run.run_dir, verb_out), 1u);
  EXPECT_EQ(files_read(EvalJob::kAny, generate, settings.run.run_dir, flag_out), 1u);
  EXPECT_EQ(verb_out, flag_out);
  const auto answer = nlohmann::json::parse(verb_out);
  EXPECT_EQ(answer["generated"][0]["prompt"], "tengo");
  EXPECT_EQ(answer["checkpoint"].get<std::string>().rfind(settings.run.run_dir, 0), 0u) << verb_out;
}

TEST(OneModelJobs, ClassifyReadsItsCheckpointOnce) {
  const auto run = test::two_epoch_tiny_vit_run().string();
  const auto image = test::fresh_temp_dir("one_model_jobs_image") / "grey.png";
  test::write_bytes(image, test::png_of(test::solid_image(28, 28, 128, 128, 128)));
  EvalCommand classify;
  classify.classify.images = {image.string()};
  std::string verb_out, flag_out;
  EXPECT_EQ(files_read(EvalJob::kClassify, classify, run, verb_out), 1u);
  EXPECT_EQ(files_read(EvalJob::kAny, classify, run, flag_out), 1u);
  EXPECT_EQ(verb_out, flag_out);
  const auto answer = nlohmann::json::parse(verb_out);
  ASSERT_EQ(answer["images"].size(), 1u) << verb_out;
  EXPECT_FALSE(answer["images"][0]["top"].empty()) << verb_out;
}

}  // namespace
}  // namespace dls::report
