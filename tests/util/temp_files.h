// Helpers for tests that write files: a fresh temporary directory, raw byte files and
// gzip compression (zlib), so that readers can be tested on data made in the test.
#pragma once

#include <ftw.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace dls::test {

// A path under the system's temporary directory that belongs to this test process alone:
// ctest runs tests in parallel processes, so a shared fixed name would let one test wipe
// another's files.
inline std::filesystem::path process_temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("dls_test_" + name + "_" + std::to_string(::getpid()));
}

// Removes `path` and everything below it, as far as it can; nothing if it does not exist.
// Not std::filesystem::remove_all: PyTorch's wheels export a copy of it from libtorch.so
// (from their toolchain's libstdc++), which tests linked against such a LibTorch call
// instead of the system's, and which crashes there (PyTorch 2.11 with CUDA 13).
inline void remove_tree(const std::filesystem::path& path) {
  ::nftw(
      path.c_str(), [](const char* file, const struct stat*, int, struct FTW*) { return std::remove(file), 0; }, 16,
      FTW_DEPTH | FTW_PHYS);
}

// The directories fresh_temp_dir() made, removed when the test process exits: ctest runs
// every test in a process of its own, and the runs trained once per process (a few MB each)
// would otherwise pile up in /tmp by the gigabyte. Only by the process that made them: a
// forked child that exits must not take its parent's files.
class TempDirsRemovedAtExit {
 public:
  static TempDirsRemovedAtExit& instance() {
    static TempDirsRemovedAtExit dirs;
    return dirs;
  }
  void add(const std::filesystem::path& dir) { dirs_.push_back(dir); }
  ~TempDirsRemovedAtExit() {
    if (::getpid() != owner_) return;
    for (const auto& dir : dirs_) remove_tree(dir);
  }

 private:
  TempDirsRemovedAtExit() = default;
  const pid_t owner_ = ::getpid();
  std::vector<std::filesystem::path> dirs_;
};

// An empty directory of this process under the temporary directory (emptied if it existed),
// removed when the process exits normally.
inline std::filesystem::path fresh_temp_dir(const std::string& name) {
  const std::filesystem::path dir = process_temp_path(name);
  remove_tree(dir);
  std::filesystem::create_directories(dir);
  TempDirsRemovedAtExit::instance().add(dir);
  return dir;
}

// A fresh run directory named after `name` whose one checkpoint is a copy of `checkpoint`
// (checkpoints/checkpoint_epoch_0001.pt): another version's run, for a resume to continue.
inline std::filesystem::path run_dir_holding(const std::filesystem::path& checkpoint, const std::string& name) {
  const auto dir = fresh_temp_dir(name);
  std::filesystem::create_directories(dir / "checkpoints");
  std::filesystem::copy_file(checkpoint, dir / "checkpoints" / "checkpoint_epoch_0001.pt");
  return dir;
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Flips a bit of the byte in the middle of `path`, in place (the same file, hard links and
// all): a checkpoint's checksum no longer holds, so that reading it again is refused.
inline void damage_in_place(const std::filesystem::path& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  write_bytes(path, bytes);
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
