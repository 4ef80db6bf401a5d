#include "dls/util/file_io.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

namespace dls::util {
namespace {

namespace fs = std::filesystem;

std::string gzip_bytes(const std::string& text) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("dls_file_io_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

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

}  // namespace
}  // namespace dls::util
