#include "dls/util/device.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dls::util {
namespace {

const torch::Device kCpu(torch::kCPU);
torch::Device gpu(int index) { return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)}; }

TEST(ChooseDevice, CpuIsAlwaysTheCpu) {
  EXPECT_EQ(choose_device("cpu", 0), kCpu);
  EXPECT_EQ(choose_device("cpu", 8, 3), kCpu);
}

TEST(ChooseDevice, OneProcessTakesTheFirstGpu) {
  EXPECT_EQ(choose_device("cuda", 1), gpu(0));
  EXPECT_EQ(choose_device("cuda", 8), gpu(0));
  EXPECT_EQ(choose_device("auto", 2), gpu(0));
}

// torchrun starts one process per GPU: local rank r trains on cuda:r, wrapping round when
// there are more ranks than GPUs.
TEST(ChooseDevice, EachTorchrunRankTakesItsOwnGpu) {
  EXPECT_EQ(choose_device("cuda", 8, 3), gpu(3));
  EXPECT_EQ(choose_device("auto", 8, 7), gpu(7));
  EXPECT_EQ(choose_device("cuda", 4, 5), gpu(1));
  EXPECT_EQ(choose_device("cuda", 1, 1), gpu(0));
}

TEST(ChooseDevice, AutoFallsBackToTheCpuWithoutAGpu) {
  EXPECT_EQ(choose_device("auto", 0), kCpu);
  EXPECT_EQ(choose_device("auto", 0, 2), kCpu);
}

TEST(ChooseDevice, RefusesWhatThisProcessCannotHave) {
  EXPECT_THROW(choose_device("cuda", 0), std::invalid_argument);
  EXPECT_THROW(choose_device("tpu", 1), std::invalid_argument);
  EXPECT_THROW(choose_device("cuda:1", 2), std::invalid_argument);
  EXPECT_THROW(choose_device("", 1), std::invalid_argument);
  EXPECT_THROW(choose_device("cuda", 1, -1), std::invalid_argument);
  try {
    choose_device("cuda", 0);
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "--device cuda: this LibTorch has no CUDA or no GPU is visible");
  }
}

// select_device asks this process's LibTorch: on a machine without a GPU (every CPU-only CI),
// cuda is refused and auto is the CPU; with one, both are cuda:0.
TEST(SelectDevice, FollowsTheVisibleGpus) {
  EXPECT_EQ(select_device("cpu"), kCpu);
  if (visible_gpus() == 0) {
    EXPECT_THROW(select_device("cuda"), std::invalid_argument);
    EXPECT_EQ(select_device("auto"), kCpu);
  } else {
    EXPECT_EQ(select_device("cuda"), gpu(0));
    EXPECT_EQ(select_device("auto"), gpu(0));
  }
}

// --device cpu counts no GPU (CUDA is never asked: under `ulimit -v` a GPU machine's driver
// failed to start and LibTorch printed a warning into a CPU run's one-line error); the
// others count what LibTorch sees.
TEST(SelectDevice, TheCpuCountsNoGpu) {
  EXPECT_EQ(visible_gpus_for("cpu"), 0);
  EXPECT_EQ(visible_gpus_for("cuda"), visible_gpus());
  EXPECT_EQ(visible_gpus_for("auto"), visible_gpus());
}

}  // namespace
}  // namespace dls::util
