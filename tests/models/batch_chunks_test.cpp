#include "dls/models/batch_chunks.h"

#include <gtest/gtest.h>

#include <torch/types.h>

namespace dls {
namespace {

TEST(BatchChunks, DefaultChunksPerLayout) {
  EXPECT_EQ(default_batch_chunks(Layout::kDLStudio, 2), 1);  // large flattened products
  EXPECT_EQ(default_batch_chunks(Layout::kVaswani, 2), 2);
  EXPECT_EQ(default_batch_chunks(Layout::kPositionwise, 3), 3);
  EXPECT_EQ(default_batch_chunks(Layout::kVaswani, 0), 1);
  EXPECT_TRUE(keeps_freed_memory(Layout::kDLStudio));
  EXPECT_FALSE(keeps_freed_memory(Layout::kVaswani));
}

TEST(BatchChunks, ChunkWorkersOnlyOnTheCpu) {
  // torch::Device values only: no GPU is needed to pin the decision.
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCPU), 2), 2);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCPU), 0), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCUDA, 0), 16), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kCUDA, 3), 2), 1);
  EXPECT_EQ(batch_chunk_workers(torch::Device(torch::kMeta), 4), 1);
}

}  // namespace
}  // namespace dls
