// How every program reports a failure: "error: <what went wrong>" as one line on stderr
// and exit status 1. c10::Error appends a multi-line C++ backtrace to what(): only its first
// line is shown, and the whole text follows only at --log-level debug (or trace).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include <c10/util/Exception.h>
#include <spdlog/spdlog.h>

namespace dls::cli {

inline int print_error_line(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  std::string message = c10_error != nullptr ? c10_error->what_without_backtrace() : error.what();
  message = message.substr(0, message.find('\n'));
  std::fprintf(stderr, "error: %s\n", message.c_str());
  if (spdlog::should_log(spdlog::level::debug) && message != error.what()) {
    std::fprintf(stderr, "%s\n", error.what());
  }
  return 1;
}

// A program's exit status once its results on standard output are written: `status` when they
// are, else 1 after one line saying why (a full disk, /dev/full, a closed descriptor). Standard
// output to a file is buffered: without this a failed write surfaced only at exit, unchecked,
// and the program ended 0 having written nothing.
inline int status_after_standard_output(int status) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!failed) return status;
  int reason = errno;
  if (reason == 0) {
    // An earlier write failed and its errno is gone: one more byte (the output is incomplete
    // already) fails for the same reason.
    std::clearerr(stdout);
    std::cout.clear();
    std::cout << '\n' << std::flush;
    reason = errno;
  }
  std::fprintf(stderr, "error: standard output: cannot write (%s)\n",
               reason != 0 ? std::strerror(reason) : "an earlier write failed");
  return status != 0 ? status : 1;
}

}  // namespace dls::cli
