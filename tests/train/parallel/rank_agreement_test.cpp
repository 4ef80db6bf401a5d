// What ranks compare before they train together: the settings but the paths and the device,
// the model's shapes, the steps of an epoch.
#include "dls/train/parallel/rank_agreement.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/train/parallel/distributed.h"

namespace dls::train {
namespace {

TEST(RankAgreement, TheDescriptionLeavesOutPathsAndTheDevice) {
  torch::nn::Linear small(3, 4), wide(3, 5);
  const std::string toml =
      "# a comment\ndata=\"/home/a/spa.txt\"\nrun-dir=\"/runs/x\"\ndevice=\"cuda\"\nbatch-size=64\nlr=0.001\n";
  const auto described = rank_description(toml, *small, 10);
  EXPECT_EQ(described.find("spa.txt"), std::string::npos) << described;
  EXPECT_EQ(described.find("device"), std::string::npos) << described;
  EXPECT_EQ(described.find("comment"), std::string::npos) << described;
  EXPECT_NE(described.find("batch-size=64\nlr=0.001\n"), std::string::npos) << described;
  EXPECT_NE(described.find("model values=16\n"), std::string::npos) << described;
  EXPECT_NE(described.find("steps per epoch=10\n"), std::string::npos) << described;
  // Another machine's paths and device agree; other shapes, settings or steps do not.
  EXPECT_EQ(rank_description("data=\"/data/spa.txt\"\ndevice=\"cpu\"\nbatch-size=64\nlr=0.001\n", *small, 10),
            described);
  EXPECT_NE(rank_description(toml, *wide, 10), described);
  EXPECT_NE(rank_description(toml, *small, 11), described);
  EXPECT_NE(rank_description("batch-size=32\nlr=0.001\n", *small, 10), described);
  // Alone, nothing to compare.
  DistributedContext alone;
  EXPECT_NO_THROW(check_ranks_agree(alone, described));
}

}  // namespace
}  // namespace dls::train
