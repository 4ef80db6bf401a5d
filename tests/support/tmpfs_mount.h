// A small tmpfs mounted by a test, to make write faults real: a full disk (its size) and a
// read-only file system (remounted read-only). Tests run as root, where chmod cannot make
// anything read-only; where mounting is not permitted, available() is false and the test
// skips with a message.
#pragma once

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "util/temp_files.h"

namespace dls::test {

class TmpfsMount {
 public:
  TmpfsMount(const std::string& name, std::size_t bytes) : dir_(fresh_temp_dir(name + "_tmpfs")) {
    const std::string options = "size=" + std::to_string(bytes);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0) {
      mounted_ = true;
    } else {
      why_ = "cannot mount a tmpfs here (" + std::string(std::strerror(errno)) + ")";
    }
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    remove_tree(dir_);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool available() const { return mounted_; }
  const std::string& why_not() const { return why_; }
  const std::filesystem::path& dir() const { return dir_; }

  // Remounts it read-only (true on success).
  bool make_read_only() { return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace dls::test
