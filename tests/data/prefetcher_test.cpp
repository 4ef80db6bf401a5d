#include "dls/data/prefetcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace dls::data {
namespace {

using namespace std::chrono_literals;

std::vector<int> drain(Prefetcher<int>& items) {
  std::vector<int> out;
  while (auto item = items.next()) out.push_back(*item);
  return out;
}

TEST(Prefetcher, ItemsComeInOrderAtEveryDepth) {
  for (const std::size_t depth : {0, 1, 3}) {
    Prefetcher<int> items(
        7, [](std::size_t i) { return static_cast<int>(i * i); }, depth);
    EXPECT_EQ(drain(items), (std::vector<int>{0, 1, 4, 9, 16, 25, 36})) << depth;
    EXPECT_FALSE(items.next().has_value());
  }
  Prefetcher<int> none(
      0, [](std::size_t) { return 1; }, 2);
  EXPECT_FALSE(none.next().has_value());
}

TEST(Prefetcher, ProducesOnAnotherThreadOnlyWhenPrefetching) {
  const auto caller = std::this_thread::get_id();
  for (const std::size_t depth : {0, 2}) {
    std::atomic<bool> other_thread{false};
    Prefetcher<int> items(
        3,
        [&](std::size_t) {
          if (std::this_thread::get_id() != caller) other_thread = true;
          return 0;
        },
        depth);
    drain(items);
    EXPECT_EQ(other_thread.load(), depth > 0);
  }
}

TEST(Prefetcher, QueueIsBounded) {
  constexpr std::size_t kDepth = 2;
  std::atomic<std::size_t> produced{0};
  Prefetcher<int> items(
      100,
      [&](std::size_t i) {
        ++produced;
        return static_cast<int>(i);
      },
      kDepth);
  // The worker fills the queue, then waits.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (produced < kDepth && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(produced.load(), kDepth);
  ASSERT_EQ(items.next().value(), 0);
  std::this_thread::sleep_for(50ms);
  EXPECT_LE(produced.load(), kDepth + 1);
}

TEST(Prefetcher, ConsumerMayStopEarly) {
  std::atomic<std::size_t> produced{0};
  const auto start = std::chrono::steady_clock::now();
  {
    Prefetcher<int> items(
        1000000,
        [&](std::size_t i) {
          ++produced;
          std::this_thread::sleep_for(1ms);
          return static_cast<int>(i);
        },
        3);
    EXPECT_EQ(items.next().value(), 0);
  }  // the destructor must return without producing the other items
  EXPECT_LE(produced.load(), 5U);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(Prefetcher, ProducerExceptionReachesTheConsumer) {
  for (const std::size_t depth : {0, 1, 4}) {
    Prefetcher<int> items(
        10,
        [](std::size_t i) {
          if (i == 3) throw std::runtime_error("batch 3 failed");
          return static_cast<int>(i);
        },
        depth);
    // Items made before the failure arrive first, then the exception, on every later call.
    for (int expected = 0; expected < 3; ++expected) EXPECT_EQ(items.next().value(), expected);
    for (int call = 0; call < 2; ++call) {
      try {
        items.next();
        ADD_FAILURE() << "no exception at depth " << depth;
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "batch 3 failed");
      }
    }
  }
}

}  // namespace
}  // namespace dls::data
