#include "dls/util/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "dls/util/create_folder.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

using test::gzip_bytes;

fs::path temp_dir(const std::string& name) { return test::fresh_temp_dir("file_io_" + name); }

TEST(FileIo, GunzipRoundTrip) {
  const std::string text(100000, 'x');
  const std::string packed = gzip_bytes(text + "end");
  ASSERT_TRUE(is_gzip(packed));
  EXPECT_EQ(gunzip(packed, "mem"), text + "end");
  EXPECT_EQ(gunzip(packed + gzip_bytes("second"), "mem"), text + "endsecond");
}

TEST(FileIo, TruncatedGzipIsAnError) {
  const std::string packed = gzip_bytes(std::string(5000, 'y'));
  try {
    gunzip(packed.substr(0, packed.size() / 2), "half.gz");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("half.gz: truncated"), std::string::npos) << e.what();
  }
}

TEST(FileIo, MissingFileNamesThePath) {
  try {
    read_file("/nonexistent/file.txt");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/file.txt"), std::string::npos);
  }
}

TEST(FileIo, ReadsFilesThatCannotSeek) {
  const fs::path dir = temp_dir("fifo");
  const std::string path = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string text(100000, 'p');
  std::thread writer([&] { std::ofstream(path, std::ios::binary) << text; });
  const std::string read = read_file(path);
  writer.join();
  EXPECT_EQ(read, text);
}

TEST(FileIo, AtomicWriteReplacesOrKeepsTheOldFile) {
  const fs::path dir = temp_dir("atomic");
  const std::string path = (dir / "out.txt").string();
  write_text_atomically(path, "first");
  EXPECT_EQ(read_file(path), "first");
  // A failure half-way through leaves the previous content and no temporary file.
  EXPECT_THROW(write_file_atomically(path,
                                     [](const std::string& tmp) {
                                       std::ofstream(tmp) << "partial";
                                       throw std::runtime_error("simulated crash");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read_file(path), "first");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  write_text_atomically(path, "second");
  EXPECT_EQ(read_maybe_gzip_file(path), "second");
}

// A directory given where a file is expected: said so, not "basic_string::_M_create".
TEST(FileIo, ADirectoryIsNotAFile) {
  const fs::path dir = temp_dir("directory");
  try {
    read_file(dir.string());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a file");
  }
}

TEST(FileIo, Crc32MatchesZlibsKnownValue) {
  const std::string text = "123456789";  // the CRC-32 check value
  EXPECT_EQ(crc32(0, text.data(), text.size()), 0xCBF43926u);
  EXPECT_EQ(crc32(crc32(0, text.data(), 4), text.data() + 4, 5), 0xCBF43926u) << "continues";
}

// A gzip bomb (deflate expands up to 1032:1) stops at the limit instead of filling memory.
TEST(FileIo, GunzipRefusesMoreThanItsLimit) {
  const std::string zeros(4 << 20, '\0');
  const std::string bomb = gzip_bytes(zeros);  // about 4 KB
  EXPECT_EQ(gunzip(bomb, "bomb.gz").size(), zeros.size()) << "the default limit (1 GiB) lets it through";
  try {
    gunzip(bomb, "bomb.gz", 1 << 20);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bomb.gz: decompresses to more than 1048576 bytes"), std::string::npos)
        << e.what();
  }
}

TEST(FileIo, FolderWriteErrorSaysWhyNoFileCanBeCreated) {
  const auto dir = test::fresh_temp_dir("file_io_folder_write");
  EXPECT_EQ(util::folder_write_error(dir.string()), "");
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "the probe file is removed again";
  EXPECT_EQ(util::folder_write_error((dir / "missing").string()), std::strerror(ENOENT));
}

// An output folder is made with its parents; where a file stands in the way, one line names
// it (std::filesystem's message is "filesystem error: cannot create directories: ...").
TEST(FileIo, CreateFolderMakesItOrSaysWhatStandsInTheWay) {
  const auto dir = temp_dir("create_folder");
  create_folder((dir / "a" / "b").string());
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  create_folder((dir / "a" / "b").string());  // there already: nothing to do
  std::ofstream((dir / "file").string()) << "x";
  const auto message = [](const fs::path& path, const std::string& flag) {
    try {
      create_folder(path.string(), flag);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(dir / "file", "--out"), "--out " + (dir / "file").string() + ": a file, not a folder");
  EXPECT_EQ(message(dir / "file" / "sub", ""),
            (dir / "file" / "sub").string() + ": " + (dir / "file").string() + " is a file, not a folder");
}

}  // namespace
}  // namespace dls::util
