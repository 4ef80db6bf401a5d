// place_training: the device a trainer's loop gets, for one process and for torchrun's ranks,
// decided without a GPU (the count of visible GPUs is passed in).
#include "dls/train/parallel/data_parallel.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace dls::train {
namespace {

using util::Precision;

EnvLookup environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}
const EnvLookup kNoLauncher = environment({});

torch::Device gpu(int index) { return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)}; }

TEST(PlaceTraining, OneProcessTrainsWhereItAsked) {
  const auto cpu = place_training("cpu", Precision::kFp32, 2, {}, kNoLauncher, 0);
  EXPECT_EQ(cpu.device, torch::Device(torch::kCPU));
  EXPECT_EQ(cpu.workers, 2);
  EXPECT_EQ(cpu.dist.world_size(), 1);
  EXPECT_EQ(cpu.dist.device(), cpu.device);

  // The defect this pins: without a launcher the loop trained on the CPU whatever --device said.
  const auto cuda = place_training("cuda", Precision::kBf16, 2, {}, kNoLauncher, 1);
  EXPECT_EQ(cuda.device, gpu(0));
  EXPECT_EQ(cuda.dist.device(), gpu(0));
  EXPECT_EQ(cuda.workers, 1) << "batch-chunk workers are a CPU path";
}

TEST(PlaceTraining, AutoTakesAGpuWhenOneIsVisible) {
  EXPECT_EQ(place_training("auto", Precision::kFp32, 1, {}, kNoLauncher, 0).device, torch::Device(torch::kCPU));
  EXPECT_EQ(place_training("auto", Precision::kFp32, 1, {}, kNoLauncher, 4).device, gpu(0));
}

// A torchrun rank's environment puts each local rank on its own GPU (the device is chosen
// from the environment alone, before any group is joined).
TEST(PlaceTraining, TorchrunRanksTakeTheirOwnGpus) {
  const auto rank = [](int global, int local) {
    return environment({{"RANK", std::to_string(global)},
                        {"WORLD_SIZE", "16"},
                        {"LOCAL_RANK", std::to_string(local)},
                        {"LOCAL_WORLD_SIZE", "8"},
                        {"MASTER_ADDR", "127.0.0.1"},
                        {"MASTER_PORT", "29500"}});
  };
  EXPECT_EQ(training_device("cuda", rank(3, 3), 8), gpu(3));
  EXPECT_EQ(training_device("cuda", rank(11, 3), 8), gpu(3)) << "the second machine's fourth rank";
  EXPECT_EQ(training_device("auto", rank(5, 5), 2), gpu(1)) << "more ranks than GPUs: shared round-robin";
  EXPECT_EQ(training_device("cpu", rank(3, 3), 8), torch::Device(torch::kCPU));
  EXPECT_EQ(training_device("auto", rank(3, 3), 0), torch::Device(torch::kCPU));
  EXPECT_THROW(training_device("cuda", rank(3, 3), 0), std::invalid_argument);
}

TEST(PlaceTraining, RefusesWhatThisProcessCannotHave) {
  EXPECT_THROW(place_training("cuda", Precision::kFp32, 1, {}, kNoLauncher, 0), std::invalid_argument);
  EXPECT_THROW(place_training("gpu", Precision::kFp32, 1, {}, kNoLauncher, 1), std::invalid_argument);
  EXPECT_THROW(place_training("cpu", Precision::kFp16, 1, {}, kNoLauncher, 0), std::invalid_argument);
  settings::ParallelSettings nccl;
  nccl.backend = "nccl";
  EXPECT_THROW(place_training("cpu", Precision::kFp32, 1, nccl, kNoLauncher, 0), std::runtime_error);
}

}  // namespace
}  // namespace dls::train
