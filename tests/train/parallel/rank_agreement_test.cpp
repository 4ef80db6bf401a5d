// What ranks compare before they train together: the settings but the paths and the device,
// the model's shapes, the steps of an epoch, the training data and the step resumed from.
#include "dls/train/parallel/rank_agreement.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/train/parallel/distributed.h"
#include "dls/util/digest.h"

namespace dls::train {
namespace {

TEST(RankAgreement, TheDescriptionLeavesOutPathsAndTheDevice) {
  torch::nn::Linear small(3, 4), wide(3, 5);
  const std::string toml =
      "# a comment\ndata=\"/home/a/spa.txt\"\nrun-dir=\"/runs/x\"\ndevice=\"cuda\"\nbatch-size=64\nlr=0.001\n";
  const auto described = rank_description(toml, *small, 10, 7, 0);
  EXPECT_EQ(described.find("spa.txt"), std::string::npos) << described;
  EXPECT_EQ(described.find("device"), std::string::npos) << described;
  EXPECT_EQ(described.find("comment"), std::string::npos) << described;
  EXPECT_NE(described.find("batch-size=64\nlr=0.001\n"), std::string::npos) << described;
  EXPECT_NE(described.find("model values=16\n"), std::string::npos) << described;
  EXPECT_NE(described.find("steps per epoch=10\n"), std::string::npos) << described;
  // Another machine's paths and device agree; other shapes, settings or steps do not.
  EXPECT_EQ(rank_description("data=\"/data/spa.txt\"\ndevice=\"cpu\"\nbatch-size=64\nlr=0.001\n", *small, 10, 7, 0),
            described);
  EXPECT_NE(rank_description(toml, *wide, 10, 7, 0), described);
  EXPECT_NE(rank_description(toml, *small, 11, 7, 0), described);
  EXPECT_NE(rank_description("batch-size=32\nlr=0.001\n", *small, 10, 7, 0), described);
  EXPECT_NE(rank_description(toml, *small, 10, 8, 0), described);   // other data of the same shape
  EXPECT_NE(rank_description(toml, *small, 10, 7, 40), described);  // resumed from another checkpoint
  // Alone, nothing to compare, and nothing is described (a digest reads all the data).
  DistributedContext alone;
  bool described_alone = false;
  EXPECT_NO_THROW(check_ranks_agree(alone, [&] {
    described_alone = true;
    return described;
  }));
  EXPECT_FALSE(described_alone);
}

TEST(RankAgreement, TheDataDigestReadsValuesAndSizesInAnyLayout) {
  const auto values = torch::arange(6, torch::kLong).reshape({2, 3});
  const auto start = util::kDigestStart;
  EXPECT_EQ(tensor_digest(start, values), tensor_digest(start, values.clone()));
  EXPECT_EQ(tensor_digest(start, values.t()), tensor_digest(start, values.t().contiguous()));  // a view's values
  EXPECT_NE(tensor_digest(start, values), tensor_digest(start, values.reshape({3, 2})));       // sizes count
  auto other = values.clone();
  other[1][2] = 0;
  EXPECT_NE(tensor_digest(start, values), tensor_digest(start, other));
}

}  // namespace
}  // namespace dls::train
