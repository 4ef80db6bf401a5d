// DynamicBatcher without HTTP or a model: a fake translation that records each batch it is
// given. Several producers get their own results in their order, a batch never mixes beam
// settings, requests wait at most wait_ms to be batched, the bounded queue refuses, a
// request that waited too long times out, a decoding no client waits for any more is told to
// stop, stop() answers what was queued, the model runs in the precision the settings ask.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dls/serve/batcher.h"
#include "dls/util/precision.h"

namespace dls::serve {
namespace {

using namespace std::chrono_literals;

// The fake model: "<sentence>|beam <k>" for each sentence; remembers every batch.
struct RecordingModel {
  std::mutex mutex;
  std::vector<std::pair<std::vector<std::string>, int>> batches;
  std::chrono::milliseconds delay{0};
  std::atomic<bool> blocked{false};  // while set, a batch waits (the queue fills behind it)

  DynamicBatcher::TranslateBatch function() {
    return [this](const std::vector<std::string>& sentences, const DecodeSetting& setting,
                  const DynamicBatcher::Cancelled&) {
      const int beam = setting.beam;
      while (blocked) std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(delay);
      {
        std::lock_guard<std::mutex> lock(mutex);
        batches.emplace_back(sentences, beam);
      }
      std::vector<eval::SentenceTranslation> out(sentences.size());
      for (std::size_t i = 0; i < sentences.size(); ++i) {
        out[i].input = sentences[i];
        out[i].text = sentences[i] + "|beam " + std::to_string(beam);
        if (sentences[i] == "bad") out[i].error = "cannot";
      }
      return out;
    };
  }
};

BatchingSettings batcher_settings(double wait_ms, std::size_t max_batch, std::size_t max_queued = 1000) {
  BatchingSettings s;
  s.wait_ms = wait_ms;
  s.max_batch = max_batch;
  s.max_queued = max_queued;
  return s;
}

TEST(DynamicBatcher, ManyProducersGetTheirOwnResultsInOrder) {
  RecordingModel model;
  model.delay = 2ms;
  DynamicBatcher batcher(model.function(), batcher_settings(5, 32));
  constexpr int kProducers = 8, kRequests = 20;
  std::vector<std::thread> producers;
  std::atomic<int> wrong{0}, batched_with_others{0};
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int r = 0; r < kRequests; ++r) {
        const std::string a = "p" + std::to_string(p) + "r" + std::to_string(r);
        const int beam = 1 + (p % 2) * 3;
        const auto result = batcher.submit({a + "x", a + "y", "bad"}, beam).wait(10s);
        const bool right = result.translations.size() == 3 &&
                           result.translations[0].text == a + "x|beam " + std::to_string(beam) &&
                           result.translations[1].text == a + "y|beam " + std::to_string(beam) &&
                           !result.translations[2].ok() && result.batch_sentences >= 3;
        if (!right) ++wrong;
        if (result.batch_sentences > 3) ++batched_with_others;
      }
    });
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(batched_with_others, 0) << "no request was ever decoded together with another";
  // A request's sentences stay together and in order inside its batch.
  std::size_t sentences = 0;
  for (const auto& [batch, beam] : model.batches) {
    sentences += batch.size();
    ASSERT_EQ(batch.size() % 3, 0u);
    EXPECT_LE(batch.size(), 32u);
    for (std::size_t i = 0; i < batch.size(); i += 3) {
      EXPECT_EQ(batch[i].substr(0, batch[i].size() - 1), batch[i + 1].substr(0, batch[i + 1].size() - 1));
      EXPECT_EQ(batch[i + 2], "bad");
    }
  }
  EXPECT_EQ(sentences, std::size_t{kProducers * kRequests * 3});
}

TEST(DynamicBatcher, ABatchNeverMixesBeamSettings) {
  RecordingModel model;
  model.blocked = true;  // everything queues behind the first batch
  DynamicBatcher batcher(model.function(), batcher_settings(20, 64));
  auto first = batcher.submit({"first"}, 1);
  std::this_thread::sleep_for(50ms);  // the worker holds "first" (blocked)
  std::vector<Ticket> tickets;
  std::vector<int> beams = {1, 4, 1, 2, 4, 1, 0, 2};
  for (std::size_t i = 0; i < beams.size(); ++i) tickets.push_back(batcher.submit({"s" + std::to_string(i)}, beams[i]));
  model.blocked = false;
  first.wait(10s);
  for (std::size_t i = 0; i < tickets.size(); ++i) {
    const auto r = tickets[i].wait(10s);
    EXPECT_EQ(r.translations.at(0).text, "s" + std::to_string(i) + "|beam " + std::to_string(std::max(1, beams[i])));
  }
  for (const auto& [batch, beam] : model.batches) {
    for (const auto& s : batch) {
      if (s == "first") continue;
      EXPECT_EQ(std::max(1, beams[std::stoul(s.substr(1))]), beam) << s << " decoded with beam " << beam;
    }
  }
  // first alone; then greedy (s0 s2 s5 s6 together), beam 4 (s1 s4), beam 2 (s3 s7).
  ASSERT_EQ(model.batches.size(), 4u);
  EXPECT_EQ(model.batches[1].first, (std::vector<std::string>{"s0", "s2", "s5", "s6"}));
  EXPECT_EQ(model.batches[2].first, (std::vector<std::string>{"s1", "s4"}));
  EXPECT_EQ(model.batches[3].first, (std::vector<std::string>{"s3", "s7"}));
}

TEST(DynamicBatcher, WithoutBatchingEachRequestIsDecodedAlone) {
  RecordingModel model;
  model.blocked = true;
  DynamicBatcher batcher(model.function(), batcher_settings(0, 1));
  std::vector<Ticket> tickets;
  for (int i = 0; i < 5; ++i) tickets.push_back(batcher.submit({"s" + std::to_string(i)}, 1));
  model.blocked = false;
  for (auto& t : tickets) EXPECT_EQ(t.wait(10s).batch_sentences, 1u);
  ASSERT_EQ(model.batches.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(model.batches[i].first.at(0), "s" + std::to_string(i));  // in arrival order
}

// --max-batch-tokens: requests join a batch while their source tokens fit (counted by the
// given function, here the words), a request larger than the limit is still decoded (alone),
// and one that does not fit waits for the next batch without losing its place.
TEST(DynamicBatcher, ABatchHoldsAtMostMaxBatchTokens) {
  RecordingModel model;
  model.blocked = true;
  auto settings = batcher_settings(20, 64);
  settings.max_batch_tokens = 6;
  const auto words = [](const std::string& sentence) {
    return static_cast<std::size_t>(std::count(sentence.begin(), sentence.end(), ' ') + 1);
  };
  DynamicBatcher batcher(model.function(), settings, words);
  auto first = batcher.submit({"first"}, 1);
  std::this_thread::sleep_for(50ms);  // the worker holds "first" (blocked)
  std::vector<Ticket> tickets;
  for (const std::string s : {"a b c", "d e", "f g h i", "j", "k l m n o p q r", "s t"})
    tickets.push_back(batcher.submit({s}, 1));
  model.blocked = false;
  first.wait(10s);
  for (auto& t : tickets) t.wait(10s);
  // 3 + 2 words, then "j" (1) fills six; "f g h i" (4) + "s t" (2); the eight-word request alone.
  ASSERT_EQ(model.batches.size(), 4u);
  EXPECT_EQ(model.batches[1].first, (std::vector<std::string>{"a b c", "d e", "j"}));
  EXPECT_EQ(model.batches[2].first, (std::vector<std::string>{"f g h i", "s t"}));
  EXPECT_EQ(model.batches[3].first, (std::vector<std::string>{"k l m n o p q r"}));
}

TEST(DynamicBatcher, ALoneRequestWaitsAtMostTheBatchWait) {
  RecordingModel model;
  DynamicBatcher batcher(model.function(), batcher_settings(30, 64));
  const auto start = std::chrono::steady_clock::now();
  const auto r = batcher.submit({"alone"}, 1).wait(10s);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.batch_sentences, 1u);
  EXPECT_GE(r.queue_ms, 25.0);
  EXPECT_LT(waited, 2s);
  // A full batch does not wait: max_batch sentences in one request start at once.
  DynamicBatcher eager(model.function(), batcher_settings(5000, 2));
  const auto full = eager.submit({"a", "b"}, 1).wait(10s);
  EXPECT_LT(full.queue_ms, 1000.0);
}

TEST(DynamicBatcher, AFullQueueRefusesAndATimedOutRequestIsDropped) {
  RecordingModel model;
  model.blocked = true;
  DynamicBatcher batcher(model.function(), batcher_settings(0, 1, 2));
  auto running = batcher.submit({"running"}, 1);
  std::this_thread::sleep_for(50ms);  // taken by the worker: no longer queued
  auto a = batcher.submit({"a"}, 1);
  auto b = batcher.submit({"b"}, 1);
  EXPECT_EQ(batcher.queued(), 2u);
  EXPECT_THROW(batcher.submit({"c"}, 1), QueueFull);
  EXPECT_THROW(a.wait(20ms), RequestTimedOut);  // its client gives up: never decoded
  model.blocked = false;
  EXPECT_EQ(running.wait(10s).translations.at(0).text, "running|beam 1");
  EXPECT_EQ(b.wait(10s).translations.at(0).text, "b|beam 1");
  for (const auto& [batch, beam] : model.batches) EXPECT_NE(batch.at(0), "a");
}

// A decoding far longer than any client waits (a fake that ends only when told to): once its
// only request has timed out, it is told to stop, and the request behind it is answered.
// The timed-out client learns that its own decoding was too long, not that the server is busy.
TEST(DynamicBatcher, ADecodingWhoseEveryClientTimedOutIsToldToStop) {
  std::atomic<bool> told{false};
  DynamicBatcher batcher(
      [&](const std::vector<std::string>& sentences, const DecodeSetting&, const DynamicBatcher::Cancelled& cancelled) {
        const auto give_up = std::chrono::steady_clock::now() + 20s;
        while (sentences.at(0) == "endless" && !cancelled()) {
          if (std::chrono::steady_clock::now() > give_up) throw std::runtime_error("never told to stop");
          std::this_thread::sleep_for(1ms);
        }
        told = told || sentences.at(0) == "endless";
        return std::vector<eval::SentenceTranslation>(sentences.size());
      },
      batcher_settings(0, 1));
  auto endless = batcher.submit({"endless"}, 1);
  std::this_thread::sleep_for(50ms);  // taken by the worker
  try {
    endless.wait(50ms);
    ADD_FAILURE() << "answered";
  } catch (const RequestTimedOut& e) {
    EXPECT_NE(std::string(e.what()).find("while decoding; fewer or shorter sentences"), std::string::npos) << e.what();
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(batcher.submit({"next"}, 1).wait(10s).translations.size(), 1u);
  EXPECT_TRUE(told);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// A batch is stopped only when no request of it waits: one client giving up does not cost
// the others their translations.
TEST(DynamicBatcher, ADecodingGoesOnWhileOneOfItsClientsWaits) {
  std::atomic<bool> ever_cancelled{false};
  DynamicBatcher batcher(
      [&](const std::vector<std::string>& sentences, const DecodeSetting&, const DynamicBatcher::Cancelled& cancelled) {
        for (int i = 0; i < 300; ++i) {
          ever_cancelled = ever_cancelled || cancelled();
          std::this_thread::sleep_for(1ms);
        }
        return std::vector<eval::SentenceTranslation>(sentences.size());
      },
      batcher_settings(200, 2));
  auto impatient = batcher.submit({"a"}, 1);
  auto patient = batcher.submit({"b"}, 1);  // joins the same batch
  EXPECT_THROW(impatient.wait(250ms), RequestTimedOut);
  const auto result = patient.wait(10s);
  EXPECT_EQ(result.batch_sentences, 2u);
  EXPECT_FALSE(ever_cancelled);
}

TEST(DynamicBatcher, StopAnswersWhatWasQueuedThenRefuses) {
  RecordingModel model;
  model.delay = 20ms;
  DynamicBatcher batcher(model.function(), batcher_settings(0, 1));
  std::vector<Ticket> tickets;
  for (int i = 0; i < 4; ++i) tickets.push_back(batcher.submit({"s" + std::to_string(i)}, 1));
  batcher.stop();
  for (auto& t : tickets) EXPECT_EQ(t.wait(1s).translations.size(), 1u);
  EXPECT_THROW(batcher.submit({"late"}, 1), QueueFull);
}

TEST(DynamicBatcher, WorkRunAloneAndErrorsReachTheirRequest) {
  std::atomic<bool> fail{false};
  DynamicBatcher batcher(
      [&](const std::vector<std::string>& s, const DecodeSetting&, const DynamicBatcher::Cancelled&) {
        if (fail) throw std::runtime_error("model failed");
        return std::vector<eval::SentenceTranslation>(s.size());
      },
      batcher_settings(0, 8));
  EXPECT_EQ(batcher.run_alone<int>([] { return 42; }, 10s), 42);
  EXPECT_THROW(batcher.run_alone<int>([]() -> int { throw std::invalid_argument("no"); }, 10s), std::invalid_argument);
  fail = true;
  EXPECT_THROW(batcher.submit({"x"}, 1).wait(10s), std::runtime_error);
  fail = false;
  EXPECT_EQ(batcher.submit({"y"}, 1).wait(10s).translations.size(), 1u);
}

TEST(DynamicBatcher, OnlyRequestsAskingTheSameDecodingShareABatchAndSamplesGoAlone) {
  RecordingModel model;
  model.blocked = true;  // all requests queue behind the first batch
  DynamicBatcher batcher(model.function(), batcher_settings(0, 64));
  auto first = batcher.submit({"first"}, 4);
  std::this_thread::sleep_for(20ms);  // the worker holds the first batch, blocked
  DecodeSetting penalised(4);
  penalised.coverage_penalty = 0.5;
  DecodeSetting sampled;
  sampled.sample = true;
  std::vector<Ticket> tickets;
  tickets.push_back(batcher.submit({"a"}, 4));
  tickets.push_back(batcher.submit({"b"}, penalised));
  tickets.push_back(batcher.submit({"c"}, 4));
  tickets.push_back(batcher.submit({"d"}, penalised));
  tickets.push_back(batcher.submit({"e"}, sampled));
  tickets.push_back(batcher.submit({"f"}, sampled));
  model.blocked = false;
  first.wait(10s);
  for (auto& t : tickets) t.wait(10s);
  std::lock_guard<std::mutex> lock(model.mutex);
  std::vector<std::vector<std::string>> batches;
  for (const auto& [sentences, beam] : model.batches) batches.push_back(sentences);
  const std::vector<std::vector<std::string>> expected = {{"first"}, {"a", "c"}, {"b", "d"}, {"e"}, {"f"}};
  EXPECT_EQ(batches, expected);
}

TEST(DynamicBatcher, TheModelRunsUnderTheAutocastAsked) {
  for (const bool bf16 : {false, true}) {
    std::atomic<bool> seen_enabled{!bf16};
    auto settings = batcher_settings(0, 4);
    settings.autocast =
        util::autocast_for(bf16 ? util::Precision::kBf16 : util::Precision::kFp32, c10::Device(c10::kCPU));
    DynamicBatcher batcher(
        [&](const std::vector<std::string>& sentences, const DecodeSetting&, const DynamicBatcher::Cancelled&) {
          seen_enabled = util::current_autocast().cpu_enabled;
          return std::vector<eval::SentenceTranslation>(sentences.size());
        },
        settings);
    batcher.submit({"a"}, 1).wait(5000ms);
    EXPECT_EQ(seen_enabled.load(), bf16);
  }
  EXPECT_FALSE(util::current_autocast().cpu_enabled);  // the caller's thread is left as it was
}

}  // namespace
}  // namespace dls::serve
