// A file that the user names for a program's output (checkpoint_eval --input's --output):
// checked before any work, so that a refusal costs nothing and writes nothing, then written
// whole or not at all.
#pragma once

#include <functional>
#include <string>

#include "dls/util/file_io.h"

namespace dls::util {

struct OutputFile {
  std::string name;       // as the user gave it: what messages say
  std::string path;       // the file written: `name` with its symbolic links resolved
  bool in_place = false;  // an existing FIFO, device or socket, or a path under /dev/ or /proc/
                          // (/dev/stdout): appended to as it is, never replaced by a file
  int mode = -1;          // an existing regular file's permission bits, which its new content keeps
};

// Checks that `name` can be written and says how. Throws std::runtime_error (one line naming
// `name`) when it is a directory, when its folder is missing or takes no new file (read-only
// file system, no permission), or when it is a file this user may not write or that is
// write-protected: a file without any write permission bit is refused even for root, whom
// permissions do not stop, so that a protected file is never replaced.
OutputFile check_output_file(const std::string& name);

// Writes `file`: `write` fills the FileWriter (and throws its error() when a write fails, to
// stop at once); its failures read "<name>: cannot write (<the system's reason>)". A new or
// regular file is written as write_file_atomically writes (a temporary beside it, fsync,
// rename; the old content until then), the temporary also removed on a terminating signal
// (RemoveOnSignal), and keeps the replaced file's permission bits.
void write_output_file(const OutputFile& file, const std::function<void(FileWriter&)>& write);

}  // namespace dls::util
