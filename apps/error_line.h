// How every program reports a failure: "error: <what went wrong>" as one line on stderr
// and exit status 1. c10::Error appends a multi-line backtrace to what(); only its first
// line is shown.
#pragma once

#include <cstdio>
#include <exception>
#include <string>

namespace dls::apps {

inline int print_error_line(const std::exception& error) {
  std::string message = error.what();
  message = message.substr(0, message.find('\n'));
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

}  // namespace dls::apps
