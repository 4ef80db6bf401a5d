// check_output_file refuses, before any work, what cannot or may not be written, and says how
// the rest is written; write_output_file replaces a file whole, keeping its mode, or writes
// into a FIFO as it is.
#include "dls/util/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <string>

#include "support/error_of.h"
#include "support/tmpfs_mount.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

// The message check_output_file refuses `path` with ("" when it accepts it).
std::string refusal(const fs::path& path) {
  return test::error_of<std::runtime_error>([&] { check_output_file(path.string()); });
}

unsigned mode_of(const fs::path& path) {
  struct stat status {};
  ::stat(path.c_str(), &status);
  return status.st_mode & 07777;
}

void write_text(const OutputFile& file, const std::string& text) {
  write_output_file(file, [&](FileWriter& out) { out.write(text.data(), text.size()); });
}

TEST(OutputFile, RefusesDirectoriesMissingFoldersAndProtectedFiles) {
  const auto dir = test::fresh_temp_dir("output_file_refusals");
  EXPECT_EQ(refusal(dir), dir.string() + ": is a directory; give the name of a file to write");
  EXPECT_EQ(refusal(dir / "absent" / "out.txt"),
            (dir / "absent" / "out.txt").string() + ": cannot write: no folder " + (dir / "absent").string());
  test::write_bytes(dir / "a_file", "x");
  EXPECT_NE(refusal(dir / "a_file" / "out.txt").find(std::strerror(ENOTDIR)), std::string::npos);
  // No write permission bit: refused even for root, content and mode untouched.
  test::write_bytes(dir / "protected.txt", "keep\n");
  ::chmod((dir / "protected.txt").c_str(), 0444);
  EXPECT_NE(refusal(dir / "protected.txt").find("write-protected (mode 0444)"), std::string::npos);
  EXPECT_EQ(mode_of(dir / "protected.txt"), 0444u);
  EXPECT_EQ(read_file((dir / "protected.txt").string()), "keep\n");
  EXPECT_EQ(refusal(dir / "new.txt"), "");
  EXPECT_FALSE(fs::exists(dir / "new.txt")) << "checking writes nothing";
}

TEST(OutputFile, RefusesAReadOnlyFileSystem) {
  test::TmpfsMount disk("output_file_read_only", 1 << 20);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  test::write_bytes(disk.dir() / "old.txt", "old\n");
  ASSERT_TRUE(disk.make_read_only());
  EXPECT_NE(refusal(disk.dir() / "new.txt").find(std::strerror(EROFS)), std::string::npos);
  EXPECT_NE(refusal(disk.dir() / "old.txt").find(std::strerror(EROFS)), std::string::npos);
}

TEST(OutputFile, AReplacedFileKeepsItsModeAndALinkStaysALink) {
  const auto dir = test::fresh_temp_dir("output_file_replace");
  test::write_bytes(dir / "out.txt", "old\n");
  ::chmod((dir / "out.txt").c_str(), 0600);
  fs::create_symlink(dir / "out.txt", dir / "link.txt");
  const auto file = check_output_file((dir / "link.txt").string());
  EXPECT_FALSE(file.in_place);
  EXPECT_EQ(file.path, fs::canonical(dir / "out.txt").string());
  write_text(file, "new\n");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(read_file((dir / "out.txt").string()), "new\n");
  EXPECT_EQ(mode_of(dir / "out.txt"), 0600u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2) << "no temporary left";
}

TEST(OutputFile, AFifoOrADeviceIsWrittenIntoNotReplaced) {
  const auto dir = test::fresh_temp_dir("output_file_fifo");
  const auto fifo = dir / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const auto file = check_output_file(fifo.string());
  EXPECT_TRUE(file.in_place);
  write_text(file, "through\n");  // fits the pipe's buffer: no reader needed meanwhile
  char buffer[64] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof(buffer)), 8);
  ::close(reader);
  EXPECT_EQ(std::string(buffer), "through\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(check_output_file("/dev/null").in_place) << "renaming over /dev/null would replace the device";
}

TEST(OutputFile, AFullDiskNamesTheFileAndTheReasonAndKeepsTheOldContent) {
  test::TmpfsMount disk("output_file_full", 64 << 10);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  const auto out = disk.dir() / "out.txt";
  test::write_bytes(out, "old\n");
  const auto file = check_output_file(out.string());
  try {
    write_output_file(file, [](FileWriter& writer) {
      const std::string block(4096, 'x');
      for (int i = 0; i < 64; ++i)
        if (!writer.write(block.data(), block.size())) throw std::runtime_error(writer.error());
    });
    FAIL() << "a full disk went unnoticed";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), out.string() + ": cannot write (" + std::strerror(ENOSPC) + ")");
  }
  EXPECT_EQ(read_file(out.string()), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(disk.dir()), fs::directory_iterator()), 1) << "no temporary left";
}

}  // namespace
}  // namespace dls::util
