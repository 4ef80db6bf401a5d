// What every fuzz target shares: the input as a string, and a file holding it for the readers
// that take a path (an anonymous in-memory file, no disk writes).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dls::fuzz {

inline std::string as_string(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// `bytes` in a memfd, readable at path(); closed with the object.
class InputFile {
 public:
  explicit InputFile(const std::string& bytes) : fd_(memfd_create("fuzz_input", 0)) {
    for (std::size_t done = 0; fd_ >= 0 && done < bytes.size();) {
      const auto n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  }
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace dls::fuzz
