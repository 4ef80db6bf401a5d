#include "dls/util/runtime.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace dls::util {
namespace {

TEST(Runtime, ThreadsFollowTheOption) {
  RuntimeOptions options;
  options.threads = 1;
  options.quiet_blas_check = true;
  options.log_level = "warn";
  EXPECT_EQ(configure_runtime(options).threads, 1);
  EXPECT_EQ(torch::get_num_threads(), 1);
  options.threads = 2;
  EXPECT_EQ(configure_runtime(options).threads, 2);
  EXPECT_EQ(torch::get_num_threads(), 2);
}

TEST(Runtime, BlasIsIdentified) {
  const RuntimeInfo info = detect_blas();
  EXPECT_FALSE(info.blas.empty());
}

TEST(Runtime, DeviceNames) {
  EXPECT_EQ(select_device("cpu"), torch::Device(torch::kCPU));
  EXPECT_THROW(select_device("tpu"), std::invalid_argument);
  if (!torch::cuda::is_available()) {
    EXPECT_THROW(select_device("cuda"), std::invalid_argument);
    EXPECT_EQ(select_device("auto"), torch::Device(torch::kCPU));
  }
}

}  // namespace
}  // namespace dls::util
