#include "dls/util/thread_policy.h"

#include <gtest/gtest.h>

#include <torch/types.h>

#include "dls/layers/transformer_config.h"

namespace dls::util {
namespace {

TEST(ThreadPolicy, DefaultChunksPerLayout) {
  const auto flattened = [](Layout layout) { return TransformerConfig().layout(layout).flattened(); };
  EXPECT_EQ(default_batch_chunks(flattened(Layout::kDLStudio), 2), 1);  // large flattened products
  EXPECT_EQ(default_batch_chunks(flattened(Layout::kVaswani), 2), 2);
  EXPECT_EQ(default_batch_chunks(flattened(Layout::kPositionwise), 3), 3);
  EXPECT_EQ(default_batch_chunks(flattened(Layout::kVaswani), 0), 1);
  EXPECT_TRUE(keeps_freed_memory(flattened(Layout::kDLStudio)));
  EXPECT_FALSE(keeps_freed_memory(flattened(Layout::kVaswani)));
  EXPECT_FALSE(keeps_freed_memory(flattened(Layout::kPositionwise)));
}

TEST(ThreadPolicy, ChunkWorkersOnlyOnTheCpu) {
  // torch::Device values only: no GPU is needed to pin the decision.
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCPU), 2), 2);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCPU), 0), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCUDA, 0), 16), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCUDA, 3), 2), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kMeta), 4), 1);
}

}  // namespace
}  // namespace dls::util
