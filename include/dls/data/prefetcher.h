// Runs a producer of numbered items (batches) on a background thread, a bounded number of
// items ahead of the consumer, so that preparing batch k+1 overlaps training on batch k.
// Items come out in order 0, 1, …, count − 1 whatever the depth, so results do not depend
// on whether prefetching is on.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace dls::data {

template <typename T>
class Prefetcher {
 public:
  using Producer = std::function<T(std::size_t index)>;

  // Produces items 0 … count − 1. depth = how many finished items may wait in the queue;
  // 0 = no thread: next() calls the producer itself.
  Prefetcher(std::size_t count, Producer produce, std::size_t depth)
      : count_(count), produce_(std::move(produce)), depth_(depth) {
    if (depth_ > 0) worker_ = std::thread([this] { run(); });
  }

  // Stops the worker (it finishes the item in hand, if any) and joins it; never waits for
  // the remaining items, so a consumer may stop early.
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next item, or nullopt after the last. An exception thrown by the producer is
  // rethrown here, after the items produced before it, and again on every later call.
  std::optional<T> next() {
    if (depth_ == 0) {
      if (error_) std::rethrow_exception(error_);
      if (next_ >= count_) return std::nullopt;
      try {
        return produce_(next_++);
      } catch (...) {
        error_ = std::current_exception();
        throw;
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !queue_.empty() || finished_; });
    if (!queue_.empty()) {
      T item = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      changed_.notify_all();
      return item;
    }
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }

 private:
  void run() {
    for (std::size_t i = 0; i < count_; ++i) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || queue_.size() < depth_; });
        if (stop_) break;
      }
      try {
        T item = produce_(i);  // outside the lock: the consumer keeps taking items
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(item));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        break;
      }
      changed_.notify_all();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
  }

  const std::size_t count_;
  const Producer produce_;
  const std::size_t depth_;
  std::size_t next_ = 0;  // synchronous mode only

  std::mutex mutex_;
  std::condition_variable changed_;  // queue, stop_ or finished_ changed
  std::deque<T> queue_;
  std::exception_ptr error_;
  bool stop_ = false;
  bool finished_ = false;
  std::thread worker_;  // last: started after every other member exists
};

}  // namespace dls::data
