// Refusing work over the memory available: the numbers as the user reads them.
#include "dls/util/memory_check.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace dls::util {
namespace {

TEST(MemoryCheck, FormatsBytesWithTheirUnit) {
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(12 * 1024.0), "12.0 KiB");
  EXPECT_EQ(format_bytes(640 * 1024.0 * 1024), "640 MiB");
  EXPECT_EQ(format_bytes(21.3 * 1024 * 1024 * 1024), "21.3 GiB");
  EXPECT_EQ(format_bytes(412 * 1024.0 * 1024 * 1024), "412 GiB");
  EXPECT_EQ(format_bytes(1.5 * 1024.0 * 1024 * 1024 * 1024), "1.50 TiB");
}

TEST(MemoryCheck, RefusesWithBothNumbersAndTheAdvice) {
  const AvailableMemory available{std::uint64_t{2} << 30, "cgroup memory.max"};
  try {
    check_fits_in_memory(412 * 1024.0 * 1024 * 1024, "the model", "lower --embedding-size", available);
    FAIL() << "not refused";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "the model need about 412 GiB, 2.00 GiB available (cgroup memory.max); lower --embedding-size");
  }
  EXPECT_NO_THROW(check_fits_in_memory(1.0 * (std::uint64_t{2} << 30), "the model", "", available));
  EXPECT_NO_THROW(check_fits_in_memory(1e30, "the model", "", std::nullopt));  // unknown: not refused
}

}  // namespace
}  // namespace dls::util
