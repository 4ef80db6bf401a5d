#include "dls/util/output_file.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "dls/util/remove_on_signal.h"

namespace dls::util {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// `path` with its symbolic links resolved (realpath), or `path` itself when that fails.
std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

}  // namespace

OutputFile check_output_file(const std::string& name) {
  OutputFile file{name, name};
  const auto refuse = [&](const std::string& why) { throw std::runtime_error(name + ": " + why); };
  struct stat status {};
  if (::stat(name.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode)) refuse("is a directory; give the name of a file to write");
    if (::access(name.c_str(), W_OK) != 0) refuse(std::string("cannot write (") + std::strerror(errno) + ")");
    if ((status.st_mode & 0222) == 0) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(status.st_mode & 07777));
      refuse(std::string("write-protected (mode ") + mode +
             "), left as it is; make it writable (chmod u+w) or write elsewhere");
    }
    // Renaming a file over a FIFO or a device would replace the device itself (/dev/null).
    file.in_place = !S_ISREG(status.st_mode) || starts_with(name, "/dev/") || starts_with(name, "/proc/");
    if (file.in_place) return file;
    file.path = resolved(name);  // through a symbolic link: its target gets the content, the link stays
    file.mode = static_cast<int>(status.st_mode & 07777);
  } else if (errno != ENOENT) {
    refuse(std::string("cannot write (") + std::strerror(errno) + ")");
  }
  const std::string folder = folder_of(file.path);
  struct stat folder_status {};
  if (::stat(folder.c_str(), &folder_status) != 0 || !S_ISDIR(folder_status.st_mode))
    refuse("cannot write: no folder " + folder);
  const std::string why = folder_write_error(folder);
  if (!why.empty()) refuse("cannot write a file into " + folder + " (" + why + ")");
  return file;
}

void write_output_file(const OutputFile& file, const std::function<void(FileWriter&)>& write) {
  if (file.in_place) {
    FileWriter out(file.path, file.name, FileWriter::Open::kAppend);
    write(out);
    out.finish();
    return;
  }
  const RemoveOnSignal remove_on_signal(temporary_name(file.path));
  write_file_atomically(file.path, [&](const std::string& tmp) {
    FileWriter out(tmp, file.name);
    write(out);
    out.finish();
    if (file.mode >= 0 && ::chmod(tmp.c_str(), static_cast<mode_t>(file.mode)) != 0)
      throw std::runtime_error(file.name + ": cannot keep its mode (" + std::strerror(errno) + ")");
  });
}

}  // namespace dls::util
