// checkpoint_eval average RUN N --with RUN2 ...: runs fine-tuned from one parent average into
// one model (a model soup), and a fine-tuned run with its parent; runs trained apart are
// refused in one line, nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

test::ProgramRun lm_train(const std::string& args, const std::string& name) {
  return test::run_program("apps/lm_train",
                           "--threads 1 --log-level warn --preset tiny --data " + testing::sample_corpus() +
                               " --validation-sentences 100 --epochs 1 " + args,
                           "checkpoint_soup_" + name);
}

test::ProgramRun checkpoint_eval(const std::string& args, const std::string& name) {
  return test::run_program("apps/checkpoint_eval", args, "checkpoint_soup_eval_" + name);
}

// The weights of `checkpoint_or_run`'s newest checkpoint, by name.
std::map<std::string, torch::Tensor> weights_of(const fs::path& checkpoint_or_run) {
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(checkpoint_or_run.string()));
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& [name, tensor] : reader.module_tensors("model")) {
    if (tensor.defined()) tensors.emplace(name, tensor);
  }
  return tensors;
}

TEST(CheckpointSoupApp, RunsFineTunedFromOneParentAverageIntoOneModel) {
  const auto dir = test::fresh_temp_dir("checkpoint_soup");
  const auto parent = dir / "parent", first = dir / "first", second = dir / "second", apart = dir / "apart";
  ASSERT_EQ(lm_train("--max-iters 3 --run-dir " + parent.string(), "parent").status, 0);
  for (const auto& [child, seed] : {std::pair{first, "1"}, std::pair{second, "2"}}) {
    const auto tuned = lm_train("--max-iters 2 --seed " + std::string(seed) + " --init-from " + parent.string() +
                                    " --run-dir " + child.string(),
                                child.filename().string());
    ASSERT_EQ(tuned.status, 0) << tuned.err;
  }
  ASSERT_EQ(lm_train("--max-iters 3 --seed 5 --run-dir " + apart.string(), "apart").status, 0);

  // The soup: each tensor the mean of the two children's.
  const auto soup = dir / "soup.pt";
  const auto made = checkpoint_eval(
      "average " + first.string() + " 1 --with " + second.string() + " --output " + soup.string(), "soup");
  ASSERT_EQ(made.status, 0) << made.err;
  const auto a = weights_of(first), b = weights_of(second), mean = weights_of(soup);
  ASSERT_EQ(mean.size(), a.size());
  int differing = 0;  // the children trained apart from one start: their mean is neither
  for (const auto& [name, tensor] : mean) {
    EXPECT_TRUE(torch::allclose(tensor, (a.at(name) + b.at(name)) / 2, 1e-6, 1e-7)) << name;
    differing += torch::equal(a.at(name), b.at(name)) ? 0 : 1;
  }
  EXPECT_GT(differing, 0);
  const checkpoint::CheckpointReader soup_reader(soup.string());
  const auto sources = soup_reader.text("averaged_from");
  EXPECT_NE(sources.find(util::absolute_path(checkpoint::latest_checkpoint(second.string()))), std::string::npos)
      << sources;
  // It is a model: checkpoint_eval evaluates it.
  const auto report = checkpoint_eval(soup.string() + " --threads 1 --json", "soup_report");
  EXPECT_EQ(report.status, 0) << report.err;

  // A fine-tuned run with its parent (WiSE-FT) is a lineage too.
  EXPECT_EQ(checkpoint_eval("average " + first.string() + " 1 --with " + parent.string() + " --output " +
                                (dir / "with_parent.pt").string(),
                            "with_parent")
                .status,
            0);

  // A run trained apart: one line, nothing written.
  const auto refused = checkpoint_eval(
      "average " + first.string() + " 1 --with " + apart.string() + " --output " + (dir / "apart.pt").string(),
      "apart");
  test::expect_one_line_error(refused, apart.string() + ": not fine-tuned from the checkpoint");
  EXPECT_FALSE(fs::exists(dir / "apart.pt"));
  test::expect_one_line_error(
      checkpoint_eval("average " + first.string() + " 1 --with " + second.string(), "no_output"),
      "--with: give --output");
  test::expect_one_line_error(checkpoint_eval("average " + first.string() + " 1", "one"),
                              "--average 1: one checkpoint is its own average");
  test::expect_one_line_error(checkpoint_eval("average " + first.string() + " 2 --with " + second.string() +
                                                  " --output " + (dir / "two.pt").string(),
                                              "two"),
                              ": 1 checkpoint, --average 2 needs that many");
}

}  // namespace
}  // namespace dls
