#include "dls/util/file_io.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace dls::util {

std::string read_file(const std::string& path) {
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

std::string gunzip(const std::string& bytes, const std::string& name) {
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
    out.reserve(std::min({std::size_t{isize}, bytes.size() * 1032, std::size_t{1} << 30}));
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
    const std::string why = status == Z_OK || status == Z_BUF_ERROR ? "truncated gzip stream"
                                                                      : "corrupt gzip stream";
    throw std::runtime_error(name + ": " + why + " (after " + std::to_string(out.size()) +
                             " decompressed bytes)");
  }
  return out;
}

std::string read_maybe_gzip_file(const std::string& path) {
  std::string bytes = read_file(path);
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& tmp_path)>& write) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    write(tmp);
    // Flush the data to disk before the rename makes it visible under its real name.
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error(tmp + ": not written (" + std::strerror(errno) + ")");
    const int synced = ::fsync(fd);
    ::close(fd);
    if (synced != 0) throw std::runtime_error(tmp + ": fsync failed (" + std::strerror(errno) + ")");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      throw std::runtime_error(path + ": cannot rename temporary file (" + std::strerror(errno) + ")");
    }
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

void write_text_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": write failed");
  });
}

}  // namespace dls::util
