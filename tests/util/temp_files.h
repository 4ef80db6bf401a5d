// Helpers for tests that write files: a fresh temporary directory, raw byte files and
// gzip compression (zlib), so that readers can be tested on data made in the test.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dls::test {

// A path under the system's temporary directory that belongs to this test process alone:
// ctest runs tests in parallel processes, so a shared fixed name would let one test wipe
// another's files.
inline std::filesystem::path process_temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("dls_test_" + name + "_" + std::to_string(::getpid()));
}

// An empty directory of this process under the temporary directory (emptied if it existed).
inline std::filesystem::path fresh_temp_dir(const std::string& name) {
  const std::filesystem::path dir = process_temp_path(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// One gzip member holding `text`.
inline std::string gzip_bytes(const std::string& text) {
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

}  // namespace dls::test
