#include "dls/util/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace dls::util {

std::string read_file(const std::string& path) {
  std::error_code ignored;
  // An ifstream opens a directory and reports a size of 2^63 - 1.
  if (std::filesystem::is_directory(path, ignored)) throw std::runtime_error(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  // One read into a buffer of the file's size: several times faster than streaming
  // through an ostringstream for files of tens of megabytes (Fashion-MNIST).
  in.seekg(0, std::ios::end);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (size < 0) {  // not seekable (a pipe): stream it
    in.clear();
    std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw std::runtime_error(path + ": read error");
    return content;
  }
  std::string content(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(content.data(), size);
  if (in.gcount() != size) {
    throw std::runtime_error(path + ": read error after " + std::to_string(in.gcount()) + " of " +
                             std::to_string(size) + " bytes");
  }
  return content;
}

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::string& name, std::size_t max_bytes) {
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip header and trailer (CRC checked by zlib).
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    throw std::runtime_error(name + ": cannot initialise zlib");
  }
  std::string out;
  // The trailer's ISIZE (little-endian, size mod 2^32 of the last member) is a good guess of
  // the output size; capped by deflate's largest ratio (1032:1), since a corrupt or
  // truncated stream may end in anything.
  if (bytes.size() >= 18) {
    std::uint32_t isize = 0;
    for (std::size_t i = 1; i <= 4; ++i) {
      isize = (isize << 8) | static_cast<unsigned char>(bytes[bytes.size() - i]);
    }
    out.reserve(std::min({std::size_t{isize}, bytes.size() * 1032, max_bytes}));
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  char buffer[1 << 16];
  int status = Z_OK;
  while (true) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - stream.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&stream);
      throw std::runtime_error(name + ": decompresses to more than " + std::to_string(max_bytes) + " bytes (from " +
                               std::to_string(bytes.size()) +
                               " compressed bytes), past the limit for any real dataset file; refused");
    }
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0) break;
      inflateReset(&stream);  // another gzip member follows
      continue;
    }
    if (status != Z_OK) break;
    if (stream.avail_in == 0 && stream.avail_out != 0) break;  // input ended mid-stream
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    const std::string why = status == Z_OK || status == Z_BUF_ERROR ? "truncated gzip stream" : "corrupt gzip stream";
    throw std::runtime_error(name + ": " + why + " (after " + std::to_string(out.size()) + " decompressed bytes)");
  }
  return out;
}

std::string read_maybe_gzip_file(const std::string& path) {
  std::string bytes = read_file(path);
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

std::string absolute_path(const std::string& path) {
  return path.empty() ? path : std::filesystem::absolute(path).lexically_normal().string();
}

std::string temporary_name(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

std::string folder_write_error(const std::string& dir) {
  const std::string probe = temporary_name((std::filesystem::path(dir) / ".write-probe").string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

std::vector<std::string> remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const auto mark = name.rfind(".tmp-");
    if (mark == std::string::npos || mark == 0 || mark + 5 == name.size() || mark + 5 + 9 < name.size()) continue;
    const std::string digits = name.substr(mark + 5);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    // kill(pid, 0) fails with ESRCH when no such process exists (EPERM: it exists).
    if (pid == ::getpid() || pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code remove_error;
    if (entry.is_regular_file(remove_error) && fs::remove(entry.path(), remove_error)) {
      removed.push_back(entry.path().string());
    }
  }
  return removed;
}

FileWriter::FileWriter(const std::string& path, std::string name, Open open)
    : name_(name.empty() ? path : std::move(name)) {
  const int flags = open == Open::kCreate ? O_CREAT | O_TRUNC : O_APPEND;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(name_ + ": cannot " + (open == Open::kCreate ? "create" : "open") + " (" +
                             std::strerror(errno) + ")");
  }
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

bool FileWriter::write(const void* data, std::size_t size) {
  if (failed()) return false;
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = name_ + ": cannot write (" + std::strerror(written < 0 ? errno : ENOSPC) + ")";
      return false;
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

void FileWriter::finish() {
  if (fd_ >= 0) {
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0 && !failed()) error_ = name_ + ": cannot write (" + std::strerror(errno) + ")";
  }
  if (failed()) throw std::runtime_error(error_);
}

std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const Bytef*>(data);
  // zlib's length is a uInt: feed it in pieces of at most 1 GiB.
  while (size > 0) {
    const std::size_t piece = std::min<std::size_t>(size, std::size_t{1} << 30);
    crc = static_cast<std::uint32_t>(::crc32(crc, bytes, static_cast<uInt>(piece)));
    bytes += piece;
    size -= piece;
  }
  return crc;
}

void write_file_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  const std::string tmp = temporary_name(path);
  try {
    write(tmp);
    // Flush the data to disk before the rename makes it visible under its real name.
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error(path + ": not written (" + std::strerror(errno) + ")");
    const int synced = ::fsync(fd);
    ::close(fd);
    if (synced != 0) throw std::runtime_error(path + ": cannot write, fsync failed (" + std::strerror(errno) + ")");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      throw std::runtime_error(path + ": cannot rename temporary file (" + std::strerror(errno) + ")");
    }
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

void link_atomically(const std::string& source, const std::string& target) {
  const std::string tmp = temporary_name(target);
  std::remove(tmp.c_str());  // a leftover of this process would make link() fail
  if (::link(source.c_str(), tmp.c_str()) == 0) {
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      std::remove(tmp.c_str());
      throw std::runtime_error(target + ": cannot rename temporary link (" + reason + ")");
    }
    return;
  }
  write_file_atomically(target, [&](const std::string& copy) {
    FileWriter out(copy, target);
    const std::string bytes = read_file(source);
    out.write(bytes.data(), bytes.size());
    out.finish();
  });
}

void write_text_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](const std::string& tmp) {
    FileWriter out(tmp, path);
    out.write(content.data(), content.size());
    out.finish();
  });
}

}  // namespace dls::util
