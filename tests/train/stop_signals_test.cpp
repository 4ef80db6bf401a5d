// A stop signal that the training loop has not acted on a while later gets one line saying
// why (a long step, or a rank waiting for one that is gone) and how to stop at once; one the
// loop acts on gets none.
#include "dls/train/stop_signals.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace dls::train {
namespace {

// spdlog's default logger writes into `log` while it lives.
class CapturedLog {
 public:
  explicit CapturedLog(std::ostringstream& log) : previous_(spdlog::default_logger()) {
    auto logger =
        std::make_shared<spdlog::logger>("stop_signals", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
    logger->set_pattern("%l %v");
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
};

TEST(StopSignals, ASignalNotActedOnGetsOneNotice) {
  std::ostringstream log;
  {
    const CapturedLog captured(log);
    const StopSignals signals(/*notice_after_ms=*/50);
    std::raise(SIGTERM);
    EXPECT_EQ(StopSignals::received(), SIGTERM);
    // However slow the machine, the watcher writes within a few of its 100 ms rounds.
    for (int i = 0; i < 200 && log.str().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rounds enough for a second notice
  }
  const auto text = log.str();
  EXPECT_EQ(text.rfind("warning SIGTERM received ", 0), 0u) << text;
  EXPECT_NE(text.find("send it again to stop at once, without a checkpoint"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line:\n" << text;
}

TEST(StopSignals, ASignalTheLoopActsOnGetsNone) {
  std::ostringstream log;
  {
    const CapturedLog captured(log);
    const StopSignals signals(/*notice_after_ms=*/50);
    std::raise(SIGINT);
    StopSignals::acknowledge();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  EXPECT_EQ(log.str(), "");
  const StopSignals again(50);
  EXPECT_EQ(StopSignals::received(), 0) << "a new run starts with no signal";
}

#ifdef __linux__
// A launcher's worker killed outright leaves its process running on (an orphan training to
// the end); after stop_when_parent_dies() it gets SIGTERM when the parent dies. Here the
// parent is a child of the test's that exits once its own child has asked; the orphan comes
// to the test, which makes itself its subreaper to wait for it.
TEST(StopSignals, AWorkerIsStoppedWhenItsParentDies) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    const pid_t worker = fork();
    if (worker == 0) {
      stop_when_parent_dies();
      const char byte = 1;
      if (write(ready[1], &byte, 1) != 1) _exit(2);
      sleep(20);  // the test fails if nothing ends this sooner
      _exit(0);
    }
    char byte = 0;
    if (worker < 0 || read(ready[0], &byte, 1) != 1) _exit(2);
    _exit(static_cast<int>(worker % 200) + 10);  // tells the test nothing but ends at once
  }
  close(ready[1]);
  int status = 0;
  ASSERT_EQ(waitpid(parent, &status, 0), parent);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) >= 10) << status;
  const pid_t orphan = waitpid(-1, &status, 0);  // the worker, now the test's
  close(ready[0]);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_GT(orphan, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
}
#endif

}  // namespace
}  // namespace dls::train
