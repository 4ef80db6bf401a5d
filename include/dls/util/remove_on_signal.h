// A temporary file that a terminating signal must not leave behind: while a RemoveOnSignal
// lives, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM and SIGXFSZ remove the file, then end the
// process by that same signal (its default action: the parent sees the signal, a shell
// reports 128 + N, 130 for Ctrl-C), as GNU sort and cp do with their temporaries.
#pragma once

#include <string>

namespace dls::util {

class RemoveOnSignal {
 public:
  // Arms the handlers for `path` (which need not exist yet: arm before creating it, so that no
  // moment is left uncovered). A signal its parent ignores stays ignored (nohup's SIGHUP, a
  // background job's SIGINT). One at a time per process: a second one throws std::logic_error.
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();  // the previous handlers back; the file is not touched
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
};

}  // namespace dls::util
