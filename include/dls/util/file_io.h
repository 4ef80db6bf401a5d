// Whole-file reading, gzip decompression (zlib) and crash-safe writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dls::util {

// Reads a whole file; throws std::runtime_error naming the file when it cannot be read
// (a directory included: "is a directory", not a failed allocation).
std::string read_file(const std::string& path);

// True when the bytes start with gzip's magic number 1f 8b.
bool is_gzip(const std::string& bytes);

// The most bytes gunzip produces by default: 1 GiB, six times the largest real input (the
// CIFAR-10 binary batches, 163 MB; Fashion-MNIST's largest file is 47 MB, DLStudio's archives
// a few MB), so that a gzip bomb (deflate expands up to 1032:1) is refused before it fills
// the memory.
inline constexpr std::size_t kMaxDecompressedBytes = std::size_t{1} << 30;

// Decompresses a gzip stream (several members allowed). `name` appears in error messages.
// Throws std::runtime_error on a corrupt or truncated stream, or one that decompresses to
// more than `max_bytes`.
std::string gunzip(const std::string& bytes, const std::string& name, std::size_t max_bytes = kMaxDecompressedBytes);

// read_file, then gunzip when the content is gzip-compressed.
std::string read_maybe_gzip_file(const std::string& path);

// Writes `path` so that it is either absent/old or complete, never half-written:
// `write` fills a temporary file in the same directory, which is flushed to disk
// (fsync) and then renamed over `path`. On any exception the temporary file is removed
// and the exception propagates; an existing `path` is left untouched.
void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

// Makes `target` a hard link to the complete file `source`, atomically: a link under the
// temporary name, renamed over `target`, so that `target` is always either its old content or
// `source`'s. Where hard links are refused (another file system, EPERM), a copy written with
// write_file_atomically. Throws std::runtime_error naming `target`.
void link_atomically(const std::string& source, const std::string& target);

// Atomically writes a string as the whole content of `path`.
void write_text_atomically(const std::string& path, const std::string& content);

// `path` made absolute and normal, so that it names the same file from any folder; "" stays ""
// (a default, not the current folder).
std::string absolute_path(const std::string& path);

// The temporary name write_file_atomically uses for `path` in this process: path.tmp-PID.
std::string temporary_name(const std::string& path);

// Why no file can be created in the existing folder `dir` ("Read-only file system",
// "Permission denied"), found by creating and removing a temporary file there, so that it
// holds for root too, whom permissions do not stop; "" when one can.
std::string folder_write_error(const std::string& dir);

// Removes the temporaries write_file_atomically left in `dir` (not recursive) when a process
// was killed while writing: files named *.tmp-PID whose process PID no longer exists. Returns
// the removed paths. Files of a live process (another writer) are left alone.
std::vector<std::string> remove_stale_temporaries(const std::string& dir);

// A file written through a descriptor, every failure kept as "<path>: cannot write (<errno
// text>)" -- for writers called back from C code (LibTorch's zip writer), which must not
// throw: write() returns false instead, and finish() throws the first failure.
class FileWriter {
 public:
  // kCreate: creates or truncates `path`. kAppend: appends to the existing `path` (a FIFO, a
  // device, /dev/stdout), which is never created or truncated. Throws when it cannot open.
  // Messages name `name` (default: `path`), e.g. the file that a temporary becomes.
  enum class Open { kCreate, kAppend };
  explicit FileWriter(const std::string& path, std::string name = "", Open open = Open::kCreate);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  bool write(const void* data, std::size_t size);  // false after any failure
  void finish();                                   // closes; throws the first failure (std::runtime_error)
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::string name_;
  int fd_ = -1;
  std::string error_;
};

// CRC-32 (zlib's) of `size` bytes, continuing `crc` (0 to start).
std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size);

}  // namespace dls::util
