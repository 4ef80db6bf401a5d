// Dynamic batching: requests from many HTTP threads go into one bounded queue, and one
// worker thread -- the only one that touches the model (eval::Translator is not
// thread-safe) -- decodes them together. After a first request the worker waits up to
// `wait_ms` for others with the same decoding setting to join, up to `max_batch` sentences and
// `max_batch_tokens` source tokens (counted by `count_tokens` when a request arrives);
// requests that arrive while a batch decodes form the next one. A batch whose every client has
// stopped waiting (504) is told to stop decoding, so one oversized request holds the worker
// for about the request timeout, not for as long as its decoding would take.
//
//   DynamicBatcher batcher([&](const auto& sentences, const DecodeSetting& setting) { ... },
//                          settings.batching);
//   auto ticket = batcher.submit({"I am hungry."}, 1);   // throws QueueFull (-> 503)
//   BatchResult r = ticket.wait(std::chrono::seconds(30));  // throws RequestTimedOut (-> 504)
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dls/eval/translator.h"
#include "dls/serve/serve_settings.h"

namespace dls::serve {

// The queue holds max_queued requests already, or the batcher is stopping.
class QueueFull : public std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A request was not answered within its time limit: dropped if its decoding had not started,
// and a decoding whose every request timed out is stopped.
class RequestTimedOut : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BatchResult {
  std::vector<eval::SentenceTranslation> translations;  // the request's sentences, in order
  double queue_ms = 0;                                  // from submit() to the start of its batch's decoding
  double decode_ms = 0;                                 // that batch's decoding
  std::size_t batch_sentences = 0;                      // sentences decoded in that batch, this request's included
};

// What a request asks of decoding. Requests share a batch only when they ask the same; a
// sampled request is decoded alone, so that its draws (keyed by the seed and each
// sentence's row in the call) are those of checkpoint_eval --sample on the same sentences.
struct DecodeSetting {
  DecodeSetting() = default;
  DecodeSetting(int beam_size) : beam(beam_size) {}  // NOLINT: a beam alone converts
  int beam = 1;                                      // 1: greedy (or sampling), K > 1: beam search
  double length_penalty = 0.0;                       // beam search: GNMT's alpha
  double coverage_penalty = 0.0;                     // beam search: GNMT's beta
  bool sample = false;                               // each word drawn as `sampling` says
  eval::SamplingOptions sampling;
  bool replace_unknown = false;  // each <unk> replaced by its aligned source word
  bool shares_batch_with(const DecodeSetting& other) const {
    return !sample && !other.sample && beam == other.beam && length_penalty == other.length_penalty &&
           coverage_penalty == other.coverage_penalty && replace_unknown == other.replace_unknown;
  }
};

namespace detail {
struct Job;
}

// A submitted request: wait() for its result.
class Ticket {
 public:
  explicit Ticket(std::shared_ptr<detail::Job> job) : job_(std::move(job)) {}
  // The result; rethrows the decoding's exception; throws RequestTimedOut after `limit`
  // (and the request is dropped when its decoding has not started; its decoding is stopped
  // when no other request of its batch waits either).
  BatchResult wait(std::chrono::milliseconds limit);

 private:
  std::shared_ptr<detail::Job> job_;
};

class DynamicBatcher {
 public:
  // Translates sentences with one decoding setting, one result per sentence in order.
  // `cancelled()` turns true once every request of the batch has stopped waiting (each client
  // got its 504): the translation may then stop by throwing (eval::DecodeOptions::cancelled),
  // which frees the worker for the requests behind. Safe to call from any thread.
  using Cancelled = std::function<bool()>;
  using TranslateBatch = std::function<std::vector<eval::SentenceTranslation>(
      const std::vector<std::string>& sentences, const DecodeSetting& setting, const Cancelled& cancelled)>;

  // The source tokens of one sentence (what --max-batch-tokens counts); called on the
  // submitting thread, so it must not touch the model.
  using CountTokens = std::function<std::size_t(const std::string& sentence)>;

  DynamicBatcher(TranslateBatch translate, BatchingSettings settings, CountTokens count_tokens = {});
  ~DynamicBatcher();  // stop()
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  // Queues a request (one or more sentences, decoded in one batch, never split). Throws
  // QueueFull when `max_queued` requests wait already, or after stop().
  Ticket submit(std::vector<std::string> sentences, const DecodeSetting& setting);

  // Runs `work` on the worker thread, alone (other model work: attention weights); queued
  // and limited like a request. Throws QueueFull, RequestTimedOut, or what `work` threw.
  template <class T>
  T run_alone(std::function<T()> work, std::chrono::milliseconds limit) {
    auto result = std::make_shared<std::optional<T>>();
    submit_task([result, work = std::move(work)] { *result = work(); }).wait(limit);
    return std::move(**result);
  }

  std::size_t queued() const;  // requests waiting for the worker (not the batch decoding now)
  // Refuses new requests, finishes those queued and joins the worker. Idempotent.
  void stop();

 private:
  Ticket submit_task(std::function<void()> task);
  Ticket enqueue(std::shared_ptr<detail::Job> job);
  void work();
  // Takes queued requests that can join `batch` (the same setting, room left); under the lock.
  struct BatchSize {
    std::size_t sentences = 0, tokens = 0;
  };
  void gather(std::vector<std::shared_ptr<detail::Job>>& batch, BatchSize& size, const DecodeSetting& setting);
  bool has_room(const BatchSize& size) const;
  void decode(std::vector<std::shared_ptr<detail::Job>>& batch, std::size_t sentences, const DecodeSetting& setting);

  TranslateBatch translate_;
  BatchingSettings settings_;
  CountTokens count_tokens_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::shared_ptr<detail::Job>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace dls::serve
