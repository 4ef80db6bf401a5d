// RemoveOnSignal: a terminating signal removes the file, then ends the process by that signal;
// the handlers it replaced come back, and a signal the parent ignores stays ignored.
#include "dls/util/remove_on_signal.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

sighandler_t handler_of(int signal) {
  struct sigaction action {};
  ::sigaction(signal, nullptr, &action);
  return action.sa_handler;
}

TEST(RemoveOnSignal, ASignalRemovesTheFileAndEndsTheProcessByIt) {
  const auto dir = test::fresh_temp_dir("remove_on_signal");
  const std::string path = (dir / "out.txt.tmp-1").string();
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    test::write_bytes(path, "half a file");
    // In a forked child (gtest's death test): only sigaction, memcpy, unlink and raise run.
    EXPECT_EXIT(
        {
          std::signal(signal, SIG_DFL);  // as if not started in the background
          const RemoveOnSignal remove(path);
          std::raise(signal);
        },
        ::testing::KilledBySignal(signal), "");
    EXPECT_FALSE(fs::exists(path)) << strsignal(signal);
  }
}

TEST(RemoveOnSignal, PutsBackThePreviousHandlersAndKeepsIgnoredSignalsIgnored) {
  const auto previous_term = handler_of(SIGTERM);
  const auto previous_hup = std::signal(SIGHUP, SIG_IGN);  // as under nohup
  {
    const RemoveOnSignal remove("/nonexistent/x.tmp-1");
    EXPECT_NE(handler_of(SIGTERM), previous_term);
    EXPECT_EQ(handler_of(SIGHUP), SIG_IGN);
    EXPECT_THROW(RemoveOnSignal("/nonexistent/y.tmp-1"), std::logic_error);
  }
  EXPECT_EQ(handler_of(SIGTERM), previous_term);
  EXPECT_EQ(handler_of(SIGHUP), SIG_IGN);
  std::signal(SIGHUP, previous_hup);
  const RemoveOnSignal again("/nonexistent/z.tmp-1");  // one at a time, not once only
}

}  // namespace
}  // namespace dls::util
