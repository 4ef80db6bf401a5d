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

}  // namespace
}  // namespace dls::train
