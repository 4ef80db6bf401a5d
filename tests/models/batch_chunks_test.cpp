#include "dls/models/batch_chunks.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dls
