// How every program reports a failure: "error: <what went wrong>" as one line on stderr
// and exit status 1. c10::Error appends a multi-line C++ backtrace to what(): only its first
// line is shown, and the whole text follows only at --log-level debug (or trace).
#pragma once

#include <cstdio>
#include <exception>
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

}  // namespace dls::cli
