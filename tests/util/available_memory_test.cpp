// The available-memory reader on fixture text: /proc/meminfo, cgroup v2 and v1 files, and
// whole fixture trees laid out as /proc and /sys/fs/cgroup are.
#include "dls/util/available_memory.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

const char* const kMeminfoFixture =
    "MemTotal:       24576000 kB\n"
    "MemFree:         1024000 kB\n"
    "MemAvailable:   22347776 kB\n"
    "Buffers:          204800 kB\n";

TEST(AvailableMemory, ReadsMemAvailableInBytes) {
  EXPECT_EQ(parse_mem_available(kMeminfoFixture), std::uint64_t{22347776} * 1024);
  EXPECT_EQ(parse_mem_available("MemTotal: 100 kB\nMemFree: 50 kB\n"), std::nullopt);  // before Linux 3.14
  EXPECT_EQ(parse_mem_available("MemAvailable: lots kB\n"), std::nullopt);
  EXPECT_EQ(parse_mem_available("MemAvailable: 100 MB\n"), std::nullopt);
  EXPECT_EQ(parse_mem_available(""), std::nullopt);
}

TEST(AvailableMemory, ACgroupsHeadroomIsItsLimitLessItsUsage) {
  EXPECT_EQ(parse_cgroup_headroom("2147483648\n", "536870912\n"), std::uint64_t{1610612736});
  EXPECT_EQ(parse_cgroup_headroom("1000\n", "4000\n"), std::uint64_t{0});  // over its limit: nothing left
  EXPECT_EQ(parse_cgroup_headroom("max\n", "536870912\n"), std::nullopt);  // v2: no limit
  EXPECT_EQ(parse_cgroup_headroom("9223372036854771712\n", "7589650432\n"), std::nullopt);  // v1: no limit
  EXPECT_EQ(parse_cgroup_headroom("", "1"), std::nullopt);
  EXPECT_EQ(parse_cgroup_headroom("100 200", "1"), std::nullopt);
  EXPECT_EQ(parse_cgroup_headroom("-5", "1"), std::nullopt);
}

void write_fixture_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  test::write_bytes(path, text);
}

TEST(AvailableMemory, TakesTheSmallerOfACgroupV2LimitAndMemAvailable) {
  const auto root = test::fresh_temp_dir("available_memory_v2");
  write_fixture_file(root / "proc/meminfo", kMeminfoFixture);
  write_fixture_file(root / "proc/self/cgroup", "0::/user.slice/job.scope\n");
  write_fixture_file(root / "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  // The job's own limit is 2 GiB with 0.5 GiB used; its parent's is larger.
  write_fixture_file(root / "sys/fs/cgroup/user.slice/job.scope/memory.max", "2147483648\n");
  write_fixture_file(root / "sys/fs/cgroup/user.slice/job.scope/memory.current", "536870912\n");
  write_fixture_file(root / "sys/fs/cgroup/user.slice/memory.max", "8589934592\n");
  write_fixture_file(root / "sys/fs/cgroup/user.slice/memory.current", "1073741824\n");
  auto available = available_memory(root.string());
  ASSERT_TRUE(available.has_value());
  EXPECT_EQ(available->bytes, std::uint64_t{1610612736});
  EXPECT_EQ(available->source, "cgroup memory.max");

  // A parent's tighter limit counts too.
  write_fixture_file(root / "sys/fs/cgroup/user.slice/memory.current", "8000000000\n");
  available = available_memory(root.string());
  ASSERT_TRUE(available.has_value());
  EXPECT_EQ(available->bytes, std::uint64_t{589934592});

  // No limit anywhere: MemAvailable.
  write_fixture_file(root / "sys/fs/cgroup/user.slice/job.scope/memory.max", "max\n");
  write_fixture_file(root / "sys/fs/cgroup/user.slice/memory.max", "max\n");
  available = available_memory(root.string());
  ASSERT_TRUE(available.has_value());
  EXPECT_EQ(available->bytes, std::uint64_t{22347776} * 1024);
  EXPECT_EQ(available->source, "MemAvailable");
}

TEST(AvailableMemory, ReadsACgroupV1MemoryLimitBesideAHybridV2) {
  const auto root = test::fresh_temp_dir("available_memory_v1");
  write_fixture_file(root / "proc/meminfo", kMeminfoFixture);
  write_fixture_file(root / "proc/self/cgroup", "9:name=systemd:/\n4:cpuacct,memory:/process_api/abc\n1:cpu:/\n0::/\n");
  write_fixture_file(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  write_fixture_file(root / "sys/fs/cgroup/memory/memory.usage_in_bytes", "7589650432\n");
  write_fixture_file(root / "sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes", "3221225472\n");
  write_fixture_file(root / "sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes", "1073741824\n");
  write_fixture_file(root / "sys/fs/cgroup/unified/memory.max", "max\n");  // the hybrid's v2 root
  write_fixture_file(root / "sys/fs/cgroup/unified/memory.current", "5\n");
  const auto available = available_memory(root.string());
  ASSERT_TRUE(available.has_value());
  EXPECT_EQ(available->bytes, std::uint64_t{2147483648});
  EXPECT_EQ(available->source, "cgroup memory.limit_in_bytes");
}

TEST(AvailableMemory, AnAddressSpaceLimitLeavesItsLimitLessWhatIsMapped) {
  const char* const limited =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max data size             unlimited            unlimited            bytes     \n"
      "Max address space         4294967296           unlimited            bytes     \n";
  const char* const status = "Name:\tseq2seq_train\nVmPeak:\t 3000000 kB\nVmSize:\t 1048576 kB\nVmRSS:\t 1000 kB\n";
  EXPECT_EQ(parse_address_space_headroom(limited, status), std::uint64_t{3} << 30);
  EXPECT_EQ(parse_address_space_headroom(limited, "VmSize:\t 8388608 kB\n"), std::uint64_t{0});  // over it
  EXPECT_EQ(parse_address_space_headroom("Max address space  unlimited  unlimited  bytes\n", status), std::nullopt);
  EXPECT_EQ(parse_address_space_headroom(limited, "Name:\tx\n"), std::nullopt);
  EXPECT_EQ(parse_address_space_headroom("", status), std::nullopt);
  // The smallest of the three: here the address space.
  const auto root = test::fresh_temp_dir("available_memory_as");
  write_fixture_file(root / "proc/meminfo", kMeminfoFixture);
  write_fixture_file(root / "proc/self/limits", limited);
  write_fixture_file(root / "proc/self/status", status);
  const auto available = available_memory(root.string());
  ASSERT_TRUE(available.has_value());
  EXPECT_EQ(available->bytes, std::uint64_t{3} << 30);
  EXPECT_EQ(available->source, "address-space limit (ulimit -v)");
}

TEST(AvailableMemory, UnknownWithoutProcAndMeasuredOnThisMachine) {
  EXPECT_EQ(available_memory(test::fresh_temp_dir("available_memory_none").string()), std::nullopt);
  const auto here = available_memory();
  ASSERT_TRUE(here.has_value()) << "Linux has /proc/meminfo";
  EXPECT_GT(here->bytes, std::uint64_t{0});
}

}  // namespace
}  // namespace dls::util
