#include "dls/util/runtime.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

// A library function's configuration (no log level) leaves the program's level as it was.
TEST(Runtime, NoLogLevelLeavesTheProgramsLevel) {
  // DLS_LOG_LEVEL (which ctest sets) would decide the level: set aside for the check.
  const char* env = std::getenv("DLS_LOG_LEVEL");
  const std::string saved = env != nullptr ? env : "";
  ::unsetenv("DLS_LOG_LEVEL");
  const auto before = spdlog::get_level();
  spdlog::set_level(spdlog::level::err);
  RuntimeOptions options;
  options.threads = torch::get_num_threads();
  options.quiet_blas_check = true;
  configure_runtime(options);
  EXPECT_EQ(spdlog::get_level(), spdlog::level::err);
  spdlog::set_level(before);
  if (env != nullptr) ::setenv("DLS_LOG_LEVEL", saved.c_str(), 1);
}

// After keep_freed_memory() a block far above glibc's mmap threshold comes from the heap,
// and once freed it stays there for the next allocation instead of going back to the kernel.
TEST(Runtime, KeepFreedMemoryServesLargeBlocksFromTheHeap) {
#if defined(__SANITIZE_ADDRESS__)  // GCC's -fsanitize=address (make test-asan)
  GTEST_SKIP() << "AddressSanitizer replaces malloc; glibc's heap is not in use";
#endif
#if defined(__GLIBC__)
  keep_freed_memory();
  constexpr std::size_t kBlock = std::size_t{256} << 20;  // 256 MB (glibc's maximum threshold: 32 MB)
  const auto mapped_before = mallinfo2().hblkhd;          // bytes in blocks mmap'd on their own
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblkhd, mapped_before) << "the block was mmap'd on its own";
  std::free(block);
  EXPECT_GE(mallinfo2().fordblks, kBlock) << "the freed block left the heap";
#else
  GTEST_SKIP() << "glibc only";
#endif
}

TEST(Runtime, BlasIsIdentified) {
  const RuntimeInfo info = detect_blas();
  EXPECT_FALSE(info.blas.empty());
}

}  // namespace
}  // namespace dls::util
