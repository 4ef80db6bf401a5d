#include "dls/serve/batcher.h"

#include <algorithm>
#include <exception>

namespace dls::serve {

namespace detail {
// One queued request: sentences to translate, or a task to run alone.
struct Job {
  std::vector<std::string> sentences;
  std::size_t tokens = 0;  // the sentences' source tokens (when counted)
  DecodeSetting setting;
  std::function<void()> task;  // set: run alone, not batched
  std::chrono::steady_clock::time_point queued_at = std::chrono::steady_clock::now();
  std::atomic<bool> abandoned{false};  // its client stopped waiting: skip it
  std::atomic<bool> started{false};    // taken into a batch that is decoding
  BatchResult result;
  std::promise<void> done;
  std::future<void> finished = done.get_future();
};
}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

BatchResult Ticket::wait(std::chrono::milliseconds limit) {
  if (job_->finished.wait_for(limit) != std::future_status::ready) {
    job_->abandoned = true;
    const auto within =
        "no answer within " + std::to_string(limit.count() / 1000.0).substr(0, 5) + " s (--request-timeout-s)";
    if (job_->started)
      throw RequestTimedOut(within + " while decoding; fewer or shorter sentences, or a smaller beam, decode sooner");
    throw RequestTimedOut(within + "; the server is busy, try again later");
  }
  job_->finished.get();  // rethrows the decoding's exception
  return std::move(job_->result);
}

DynamicBatcher::DynamicBatcher(TranslateBatch translate, BatchingSettings settings, CountTokens count_tokens)
    : translate_(std::move(translate)), settings_(settings), count_tokens_(std::move(count_tokens)) {
  settings_.max_batch = std::max<std::size_t>(1, settings_.max_batch);
  worker_ = std::thread([this] { work(); });
}

DynamicBatcher::~DynamicBatcher() { stop(); }

Ticket DynamicBatcher::submit(std::vector<std::string> sentences, const DecodeSetting& setting) {
  auto job = std::make_shared<detail::Job>();
  job->sentences = std::move(sentences);
  if (settings_.max_batch_tokens > 0 && count_tokens_) {
    for (const auto& sentence : job->sentences) job->tokens += count_tokens_(sentence);
  }
  job->setting = setting;
  job->setting.beam = std::max(1, setting.beam);
  return enqueue(std::move(job));
}

Ticket DynamicBatcher::submit_task(std::function<void()> task) {
  auto job = std::make_shared<detail::Job>();
  job->task = std::move(task);
  return enqueue(std::move(job));
}

Ticket DynamicBatcher::enqueue(std::shared_ptr<detail::Job> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw QueueFull("the server is shutting down");
    if (queue_.size() >= settings_.max_queued)
      throw QueueFull("the server is busy: " + std::to_string(queue_.size()) + " requests wait already (--queue)");
    queue_.push_back(job);
  }
  arrived_.notify_one();
  return Ticket(std::move(job));
}

std::size_t DynamicBatcher::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

void DynamicBatcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  arrived_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool DynamicBatcher::has_room(const BatchSize& size) const {
  return size.sentences < settings_.max_batch &&
         (settings_.max_batch_tokens == 0 || size.tokens < settings_.max_batch_tokens);
}

void DynamicBatcher::gather(std::vector<std::shared_ptr<detail::Job>>& batch, BatchSize& size,
                            const DecodeSetting& setting) {
  for (auto it = queue_.begin(); it != queue_.end() && has_room(size);) {
    auto& job = *it;
    if (job->abandoned) {
      it = queue_.erase(it);
      continue;
    }
    const bool fits = size.sentences + job->sentences.size() <= settings_.max_batch &&
                      (settings_.max_batch_tokens == 0 || size.tokens + job->tokens <= settings_.max_batch_tokens);
    if (!job->task && job->setting.shares_batch_with(setting) && fits) {
      size.sentences += job->sentences.size();
      size.tokens += job->tokens;
      batch.push_back(std::move(job));
      it = queue_.erase(it);
    } else {
      ++it;  // left for a later batch: the next one starts with the oldest waiting request
    }
  }
}

void DynamicBatcher::decode(std::vector<std::shared_ptr<detail::Job>>& batch, std::size_t sentences,
                            const DecodeSetting& setting) {
  std::vector<std::string> all;
  all.reserve(sentences);
  for (const auto& job : batch) all.insert(all.end(), job->sentences.begin(), job->sentences.end());
  for (const auto& job : batch) job->started = true;
  const auto nobody_waits = [&batch] {
    return std::all_of(batch.begin(), batch.end(), [](const auto& job) { return job->abandoned.load(); });
  };
  const auto start = Clock::now();
  try {
    auto translations = all.empty() ? std::vector<eval::SentenceTranslation>{} : translate_(all, setting, nobody_waits);
    if (translations.size() != all.size())
      throw std::logic_error("the batch's translations do not match its sentences");
    const double decode_ms = ms_between(start, Clock::now());
    std::size_t next = 0;
    for (auto& job : batch) {
      auto& r = job->result;
      r.queue_ms = ms_between(job->queued_at, start);
      r.decode_ms = decode_ms;
      r.batch_sentences = all.size();
      for (std::size_t i = 0; i < job->sentences.size(); ++i) r.translations.push_back(std::move(translations[next++]));
      job->done.set_value();
    }
  } catch (...) {
    for (auto& job : batch) job->done.set_exception(std::current_exception());
  }
}

void DynamicBatcher::work() {
  const util::AutocastScope precision(settings_.autocast);  // all model work runs on this thread (and its chunks)
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    arrived_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    auto first = std::move(queue_.front());
    queue_.pop_front();
    if (first->abandoned) continue;
    if (first->task) {
      lock.unlock();
      try {
        first->task();
        first->done.set_value();
      } catch (...) {
        first->done.set_exception(std::current_exception());
      }
      lock.lock();
      continue;
    }
    const DecodeSetting setting = first->setting;
    BatchSize size{first->sentences.size(), first->tokens};  // the first request is taken whatever its size
    std::vector<std::shared_ptr<detail::Job>> batch{std::move(first)};
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double, std::milli>(std::max(0.0, settings_.wait_ms)));
    gather(batch, size, setting);
    // Wait for others to join while there is room, until the deadline (none when stopping).
    while (has_room(size) && !stopping_ && arrived_.wait_until(lock, deadline) != std::cv_status::timeout) {
      gather(batch, size, setting);
    }
    gather(batch, size, setting);
    lock.unlock();
    decode(batch, size.sentences, setting);
    lock.lock();
  }
}

}  // namespace dls::serve
