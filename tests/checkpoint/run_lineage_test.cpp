// Where a run's weights come from (checkpoint_eval average --with): its run, then what its
// --init-from read, as config.toml records it; runs fine-tuned from one parent share it, runs
// trained apart share nothing.
#include "dls/checkpoint/run_lineage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dls/util/resolved_path.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

// A run directory with a checkpoint and a config.toml whose init-from is `parent` ("": none).
fs::path run(const fs::path& root, const std::string& name, const std::string& parent) {
  const auto dir = root / name;
  fs::create_directories(dir / "checkpoints");
  test::write_bytes(dir / "checkpoints" / "checkpoint_epoch_0001.pt", "weights");
  test::write_bytes(dir / "metrics.csv", "epoch\n");
  test::write_bytes(dir / "config.toml",
                    "epochs=1\n" + (parent.empty() ? std::string() : "init-from=\"" + parent + "\"\n") + "seed=0\n");
  return dir;
}

std::string resolved(const fs::path& path) { return util::resolved_path(path.string()); }

TEST(RunLineage, FollowsInitFromBackToARunTrainedFromScratch) {
  const auto root = test::fresh_temp_dir("run_lineage_chain");
  const auto parent = run(root, "parent", "");
  const auto child = run(root, "child", (parent / "checkpoints" / "checkpoint_epoch_0001.pt").string());
  const auto grandchild = run(root, "grandchild", child.string());
  EXPECT_EQ(run_lineage(parent.string()), std::vector<std::string>{resolved(parent)});
  EXPECT_EQ(run_lineage((grandchild / "checkpoints" / "checkpoint_epoch_0001.pt").string()),
            (std::vector<std::string>{resolved(grandchild), resolved(child), resolved(parent)}));
  // Siblings share their parent; a parent and its child share the parent; strangers nothing.
  const auto sibling = run(root, "sibling", (parent / "checkpoints" / "checkpoint_epoch_0001.pt").string());
  const auto stranger = run(root, "stranger", "");
  EXPECT_EQ(shared_origin(run_lineage(child.string()), run_lineage(sibling.string())), resolved(parent));
  EXPECT_EQ(shared_origin(run_lineage(grandchild.string()), run_lineage(parent.string())), resolved(parent));
  EXPECT_EQ(shared_origin(run_lineage(child.string()), run_lineage(stranger.string())), "");
}

TEST(RunLineage, AFileStandingAloneIsItsOwnOriginAndALoopEnds) {
  const auto root = test::fresh_temp_dir("run_lineage_files");
  // Two imports in one folder of the user's: not one origin because they share a folder.
  test::write_bytes(root / "a.pt", "weights");
  test::write_bytes(root / "b.pt", "weights");
  const auto from_a = run(root, "from_a", (root / "a.pt").string());
  const auto from_b = run(root, "from_b", (root / "b.pt").string());
  const auto also_a = run(root, "also_a", (root / "a.pt").string());
  EXPECT_EQ(shared_origin(run_lineage(from_a.string()), run_lineage(from_b.string())), "");
  EXPECT_EQ(shared_origin(run_lineage(from_a.string()), run_lineage(also_a.string())), resolved(root / "a.pt"));
  // Runs naming each other (a config.toml edited by hand) end instead of going round.
  const auto x = root / "x", y = root / "y";
  run(root, "x", y.string());
  run(root, "y", x.string());
  EXPECT_EQ(run_lineage(x.string()), (std::vector<std::string>{resolved(x), resolved(y)}));
  // A config.toml that does not read records no origin.
  const auto damaged = run(root, "damaged", "");
  test::write_bytes(damaged / "config.toml", "init-from=\"unterminated\n");
  EXPECT_EQ(run_lineage(damaged.string()), std::vector<std::string>{resolved(damaged)});
}

}  // namespace
}  // namespace dls::checkpoint
