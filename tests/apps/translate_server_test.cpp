// translate_server end to end over loopback: every endpoint, every error status (JSON, one
// line), the limits, SIGTERM with a request in flight, and concurrent clients getting
// exactly the translations `checkpoint_eval --translate` prints.
#include <gtest/gtest.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/util/key_values.h"
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "support/program_run.h"
#include "support/raw_http.h"
#include "support/seq2seq_runs.h"
#include "support/translate_server_process.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The tiny run's newest checkpoint, given as a file (RUN itself would mean its best.pt).
std::string served_checkpoint() { return checkpoint::latest_checkpoint(test::trained_seq2seq_run().string()); }

json post_json(const test::TranslateServerProcess& server, const std::string& path, const json& body,
               int* status = nullptr) {
  const auto res = server.client()->Post(path.c_str(), body.dump(), "application/json");
  if (!res) {
    ADD_FAILURE() << "POST " << path << ": no answer (" << httplib::to_string(res.error()) << ")";
    return json();
  }
  if (status != nullptr) *status = res->status;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  return json::parse(res->body, nullptr, false);
}

// The request answered `status` with a JSON {"error": "<one line containing part>"}.
void expect_error(const httplib::Result& res, int status, const std::string& part) {
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, status) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << status;
  const auto body = json::parse(res->body, nullptr, false);
  ASSERT_TRUE(body.is_object() && body.contains("error") && body["error"].is_string()) << res->body;
  const auto message = body["error"].get<std::string>();
  EXPECT_NE(message.find(part), std::string::npos) << status << ": " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(body.size(), 1u) << res->body;
}

TEST(TranslateServerApp, EveryEndpoint) {
  const auto page = test::fresh_temp_dir("server_page_dir");
  test::write_bytes(page / "index.html", "<!doctype html><title>t</title>");
  test::write_bytes(page / "app.js", "console.log(1);");
  test::write_bytes(page / "style.css", "body{}");
  test::TranslateServerProcess server(served_checkpoint(), {"--page-dir", page.string()}, "endpoints");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  auto client = server.client();

  const auto health = client->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body), json({{"status", "ok"}, {"queued", 0}}));

  const auto model = json::parse(client->Get("/model")->body);
  EXPECT_EQ(model["checkpoint"], served_checkpoint());
  EXPECT_EQ(model["embedding_size"], 32);
  EXPECT_EQ(model["heads"], 2);
  EXPECT_EQ(model["encoder_layers"], 1);
  EXPECT_EQ(model["decoder_layers"], 1);
  EXPECT_EQ(model["max_source_tokens"], 8);
  EXPECT_EQ(model["long_sentences"], "whole");  // the vaswani layout reads any length
  EXPECT_EQ(model["variant"], "PreLN");
  EXPECT_EQ(model["source_language"], "en");
  EXPECT_EQ(model["target_language"], "es");
  EXPECT_EQ(model["source_language_name"], "English");
  EXPECT_EQ(model["target_language_name"], "Spanish");
  EXPECT_GT(model["source_vocabulary_size"].get<int>(), 10);
  EXPECT_GT(model["target_vocabulary_size"].get<int>(), 10);
  EXPECT_EQ(model["scores"]["epoch"], 3);
  for (const char* key : {"summary", "layout", "val_loss", "val_bleu"})
    EXPECT_TRUE(model.contains(key) || model["scores"].contains(key)) << key;

  int status = 0;
  const auto translated = post_json(
      server, "/translate",
      {{"sentences", {"I have a car.", "I have a xylophone.", "", "one two three four five six seven eight nine"}}},
      &status);
  EXPECT_EQ(status, 200);
  const auto& t = translated["translations"];
  ASSERT_EQ(t.size(), 4u) << translated;
  EXPECT_EQ(t[0]["input"], "I have a car.");
  EXPECT_FALSE(t[0]["translation"].get<std::string>().empty());
  EXPECT_EQ(t[0]["translation"].get<std::string>().back(), '.');
  EXPECT_EQ(t[0]["normalised"], "i have a car");
  EXPECT_EQ(t[0]["unknown_words"], json::array());
  EXPECT_LT(t[0]["log_probability"].get<double>(), 0);
  EXPECT_EQ(t[1]["unknown_words"], json::array({"xylophone"}));
  EXPECT_EQ(t[2]["error"], "no words left after normalisation");
  EXPECT_FALSE(t[3].contains("error")) << t[3];  // longer than trained on: translated whole, with a note
  EXPECT_NE(t[3].value("note", "").find("9 words, more than the 8 this model was trained on"), std::string::npos)
      << t[3];
  EXPECT_EQ(translated["beam"], 1);
  EXPECT_EQ(translated["batch_sentences"], 4);
  for (const char* timing : {"queue_ms", "decode_ms", "total_ms"})
    EXPECT_GE(translated["timings"][timing].get<double>(), 0) << timing;
  const auto beamed = post_json(server, "/translate", {{"sentences", {"I have a car."}}, {"beam", 3}});
  EXPECT_EQ(beamed["beam"], 3);
  EXPECT_FALSE(beamed["translations"][0]["translation"].get<std::string>().empty());

  const auto attention = post_json(server, "/attention", {{"sentence", "I have a car."}}, &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(attention["translation"], t[0]["translation"]);
  EXPECT_EQ(attention["source"], json::array({"SOS", "i", "have", "a", "car", "EOS"}));
  // A decoder row per decoding step: the word it writes, the last EOS; the word it reads, SOS first.
  const auto target_size = attention["target"].size();
  EXPECT_EQ(attention["target"][0], "SOS");
  ASSERT_EQ(attention["written"].size(), target_size);
  EXPECT_EQ(attention["written"].back(), "EOS");
  for (std::size_t i = 1; i < target_size; ++i) EXPECT_EQ(attention["target"][i], attention["written"][i - 1]);
  ASSERT_EQ(attention["encoder_self"].size(), 1u);        // layers
  ASSERT_EQ(attention["encoder_self"][0].size(), 2u);     // heads
  EXPECT_EQ(attention["encoder_self"][0][1].size(), 6u);  // source rows
  EXPECT_EQ(attention["decoder_self"][0][0].size(), target_size);
  ASSERT_EQ(attention["cross"][0][0].size(), target_size);  // target rows
  EXPECT_EQ(attention["cross"][0][0][0].size(), 6u);        // source columns
  double row_sum = 0;
  for (const auto& w : attention["cross"][0][1][1]) row_sum += w.get<double>();
  EXPECT_NEAR(row_sum, 1.0, 1e-3);  // a softmax row
  expect_error(client->Post("/attention", json({{"sentence", "   "}}).dump(), "application/json"), 400,
               "no words left");

  const auto index = client->Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->body, "<!doctype html><title>t</title>");
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(client->Get("/app.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(client->Get("/style.css")->get_header_value("Content-Type"), "text/css; charset=utf-8");
  expect_error(client->Get("/missing.js"), 404, "not found");
  expect_error(client->Get("/../index.html"), 404, "not found");
  expect_error(client->Get("/%2e%2e/etc/passwd"), 404, "not found");
  expect_error(client->Get("/a/b"), 404, "not found");
  const auto wrong = client->Get("/translate");
  expect_error(wrong, 405, "takes POST");
  EXPECT_EQ(wrong->get_header_value("Allow"), "POST");
  expect_error(client->Post("/health", "{}", "application/json"), 405, "takes GET");
  expect_error(client->Delete("/model"), 405, "takes GET");
  expect_error(client->Post("/nothing", "{}", "application/json"), 404, "not found");
  expect_error(client->Post("/translate", "{bad", "application/json"), 400, "not valid JSON");
  expect_error(client->Post("/translate", R"({"sentence": ["a"]})", "application/json"), 400, "\"sentences\"");
  expect_error(client->Post("/translate", R"({"sentences": ["a"], "beam": "x"})", "application/json"), 400, "beam");
}

// A run trained Spanish -> English (--reverse) is served that way: /model gives its languages'
// codes and names, a Spanish sentence is normalised by Spanish's rules and its translation
// written by English's (no opening "¿"), and the start-up line names the pair.
TEST(TranslateServerApp, AReversedRunIsServedSpanishToEnglish) {
  const auto checkpoint = checkpoint::latest_checkpoint(test::reversed_seq2seq_run().string());
  test::TranslateServerProcess server(checkpoint, {}, "reversed", "info");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto model = json::parse(server.client()->Get("/model")->body);
  EXPECT_EQ(model["source_language"], "es");
  EXPECT_EQ(model["target_language"], "en");
  EXPECT_EQ(model["source_language_name"], "Spanish");
  EXPECT_EQ(model["target_language_name"], "English");

  int status = 0;
  const auto translated = post_json(server, "/translate", {{"sentences", {"¿Dónde está la estación?"}}}, &status);
  EXPECT_EQ(status, 200) << translated;
  const auto& t = translated["translations"][0];
  EXPECT_FALSE(t.contains("error")) << translated;
  EXPECT_EQ(t["normalised"], "dónde está la estación");
  EXPECT_EQ(t["translation"].get<std::string>().find("¿"), std::string::npos) << translated;

  const auto log = server.process().stderr_text();
  EXPECT_NE(log.find(", Spanish -> English) on cpu; page: "), std::string::npos) << log;
}

// An RNN encoder-decoder's run is served as a transformer's: its translations are
// checkpoint_eval's, and /attention answers its one attention per step (the alignment table)
// as one layer of one head of cross-attention, with no self-attention.
TEST(TranslateServerApp, AnRnnRunIsServedWithItsAlignmentTable) {
  const auto run = test::trained_rnn_seq2seq_run().string();
  const auto expected =
      test::run_program("apps/checkpoint_eval", "--threads 1 " + run + " --translate \"I have a car.\"", "rnn_served");
  ASSERT_EQ(expected.status, 0) << expected.err;
  test::TranslateServerProcess server(run, {}, "rnn");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  int status = 0;
  const auto translated = post_json(server, "/translate", {{"sentences", {"I have a car."}}}, &status);
  EXPECT_EQ(status, 200) << translated;
  EXPECT_EQ(translated["translations"][0]["translation"].get<std::string>() + "\n", expected.out) << translated;
  const auto attention = post_json(server, "/attention", {{"sentence", "I have a car."}}, &status);
  EXPECT_EQ(status, 200) << attention;
  EXPECT_EQ(attention["encoder_self"].size(), 0u);
  EXPECT_EQ(attention["decoder_self"].size(), 0u);
  ASSERT_EQ(attention["cross"].size(), 1u);                                 // one layer
  ASSERT_EQ(attention["cross"][0].size(), 1u);                              // of one head
  EXPECT_EQ(attention["cross"][0][0].size(), attention["written"].size());  // a row per decoding step
  EXPECT_EQ(attention["cross"][0][0][0].size(), attention["source"].size());
}

TEST(TranslateServerApp, LimitsAnswer400And413) {
  test::TranslateServerProcess server(
      served_checkpoint(), {"--max-body-bytes", "300", "--max-sentences", "2", "--max-sentence-chars", "40"}, "limits");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  auto client = server.client();
  expect_error(client->Post("/translate", json({{"sentences", {std::string(400, 'a')}}}).dump(), "application/json"),
               413, "larger than 300 bytes (--max-body-bytes)");
  expect_error(client->Post("/translate", json({{"sentences", {"a", "b", "c"}}}).dump(), "application/json"), 400,
               "3 sentences; at most 2 per request (--max-sentences)");
  expect_error(client->Post("/translate", json({{"sentences", {std::string(41, 'a')}}}).dump(), "application/json"),
               400, "41 bytes; at most 40");
  expect_error(client->Post("/attention", json({{"sentence", std::string(41, 'a')}}).dump(), "application/json"), 400,
               "41 bytes; at most 40");
  const auto fine = client->Post("/translate", json({{"sentences", {"I have a car.", "I open the door."}}}).dump(),
                                 "application/json");
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
}

// The program's own flags reach its HTTP server (the transport's behaviour itself:
// tests/serve/http_server_test.cpp): a foreign Host is refused unless --allow-host names
// it, every method a path does not take is 405 with Allow, a compressed body is refused,
// and a translation server says what /classify needs.
TEST(TranslateServerApp, HostMethodsAndEncodingsAreChecked) {
  test::TranslateServerProcess server(served_checkpoint(), {"--allow-host", "translate.example.org"}, "transport");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto ask = [&](const std::string& request) {
    test::RawConnection connection(server.port());
    EXPECT_TRUE(connection.send(request));
    return connection.read_answer().value_or(test::RawAnswer{});
  };
  const auto foreign = ask("GET /model HTTP/1.1\r\nHost: rebind.evil.example\r\n\r\n");
  EXPECT_EQ(foreign.status, 403);
  EXPECT_EQ(foreign.body.find(served_checkpoint()), std::string::npos);
  EXPECT_EQ(ask("GET /model HTTP/1.1\r\nHost: translate.example.org:80\r\n\r\n").status, 200);
  const auto options = ask("OPTIONS /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(options.status, 405);
  EXPECT_EQ(options.header("allow"), "POST");
  EXPECT_EQ(ask("DELETE /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").header("allow"), "GET, HEAD");
  EXPECT_EQ(ask("POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n"
                "{}")
                .status,
            415);
  // Attention maps grow with the square of the length: drawn for up to 4 times the 8 words
  // the model was trained on, while /translate takes the sentence (in parts past that).
  std::string forty;
  for (int i = 0; i < 40; ++i) forty += "car ";
  int status = 0;
  const auto long_maps = post_json(server, "/attention", {{"sentence", forty}}, &status);
  EXPECT_EQ(status, 400);
  EXPECT_NE(long_maps.value("error", "").find("the sentence has 40 tokens; attention maps are drawn for up to 32"),
            std::string::npos)
      << long_maps;
  const auto long_translation = post_json(server, "/translate", {{"sentences", {forty}}}, &status);
  EXPECT_EQ(status, 200);
  EXPECT_NE(long_translation["translations"][0].value("note", "").find("translated in"), std::string::npos)
      << long_translation;
  const auto classify = ask("POST /classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(classify.status, 404);
  EXPECT_NE(classify.body.find("ViT checkpoint"), std::string::npos) << classify.body;
}

TEST(TranslateServerApp, AFullQueueAnswers503AndASlowRequest504) {
  // The worker holds a first (greedy) request 1.5 s to fill its batch; a beam-2 request
  // waits behind it (the queue's one place); a third is refused. Both time out after 1 s.
  test::TranslateServerProcess server(served_checkpoint(),
                                      {"--queue", "1", "--batch-wait-ms", "1500", "--request-timeout-s", "1"}, "busy");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  std::optional<httplib::Result> first, second;  // httplib::Result has no empty state
  std::thread a(
      [&] { first = server.client()->Post("/translate", R"({"sentences": ["I have a car."]})", "application/json"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::thread b([&] {
    second = server.client()->Post("/translate", R"({"sentences": ["I have a car."], "beam": 2})", "application/json");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto health = server.client()->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body)["queued"], 1);
  const auto refused =
      server.client()->Post("/translate", R"({"sentences": ["I open the door."], "beam": 3})", "application/json");
  expect_error(refused, 503, "busy");
  EXPECT_EQ(refused->get_header_value("Retry-After"), "1");
  a.join();
  b.join();
  ASSERT_TRUE(first && second);
  expect_error(*first, 504, "--request-timeout-s");
  expect_error(*second, 504, "--request-timeout-s");
}

// The server's --device and --precision reach the model's loading (ServerCommand's
// declaration binds them): without a GPU, --device cuda and fp16 are refused in one line
// before it listens (a server that listened instead is stopped after 60 s, and fails).
// Pins on a CPU machine what a GPU server relies on.
TEST(TranslateServerApp, TheDeviceAndPrecisionAskedReachTheModel) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a GPU is visible: --device cuda is served, not refused";
  const std::string served = served_checkpoint() + " --port 0 --threads 1 ";
  const auto refused = [&](const std::string& flags, const std::string& name) {
    return test::run_program("apps/translate_server", served + flags, name, "", "timeout 60 ");
  };
  test::expect_one_line_error(refused("--device cuda", "server_cuda"),
                              "--device cuda: this LibTorch has no CUDA or no GPU is visible");
  test::expect_one_line_error(refused("--precision fp16", "server_fp16"), "--precision: fp16 needs --device cuda");
}

// What the server cannot serve is refused in one line before it listens: a checkpoint of
// another kind (a language model's), a --page-dir that is not a folder.
TEST(TranslateServerApp, WhatItCannotServeIsRefusedAtStart) {
  const auto dir = test::fresh_temp_dir("server_refusals");
  checkpoint::CheckpointWriter writer("lm");
  writer.add_settings(util::KeyValues{});
  writer.save((dir / "lm.pt").string());
  test::expect_one_line_error(
      test::run_program("apps/translate_server", (dir / "lm.pt").string() + " --port 0 --threads 1", "server_lm", "",
                        "timeout 60 "),
      "lm.pt: a lm checkpoint; the server serves seq2seq (translation) and vit (classification) checkpoints");
  test::expect_one_line_error(
      test::run_program("apps/translate_server",
                        served_checkpoint() + " --port 0 --threads 1 --page-dir " + (dir / "none").string(),
                        "server_page_dir", "", "timeout 60 "),
      "none: not a folder");
}

TEST(TranslateServerApp, SigtermLetsTheRequestInFlightFinishThenExitsZero) {
  test::TranslateServerProcess server(served_checkpoint(), {"--batch-wait-ms", "1000"}, "sigterm");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  std::optional<httplib::Result> answer;
  std::thread client(
      [&] { answer = server.client()->Post("/translate", R"({"sentences": ["I have a car."]})", "application/json"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // in the worker's batch wait
  server.signal(SIGTERM);
  client.join();
  ASSERT_TRUE(answer && *answer) << (answer ? httplib::to_string(answer->error()) : "no request");
  EXPECT_EQ((*answer)->status, 200);
  EXPECT_EQ(json::parse((*answer)->body)["translations"].size(), 1u);
  ASSERT_TRUE(server.wait(std::chrono::seconds(20))) << "still running 20 s after SIGTERM";
  EXPECT_EQ(server.process().exit_code, 0) << server.process().stderr_text();
  EXPECT_FALSE(server.client()->Get("/health")) << "still accepting after SIGTERM";
}

// A stop that waits on long work can be cut short: a second signal ends the server at once
// (status 128 + 15), the request held in the worker's 5-second batch wait unanswered.
TEST(TranslateServerApp, ASecondSignalStopsAtOnce) {
  test::TranslateServerProcess server(served_checkpoint(), {"--batch-wait-ms", "5000"}, "second_signal", "info");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  std::thread client(
      [&] { server.client()->Post("/translate", R"({"sentences": ["I have a car."]})", "application/json"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  server.signal(SIGTERM);
  ASSERT_TRUE(server.wait(std::chrono::seconds(20))) << "still running 20 s after the second SIGTERM";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4)) << "waited for the batch";
  client.join();
  EXPECT_EQ(server.process().exit_code, 128 + SIGTERM) << server.process().stderr_text();
  const auto err = server.process().stderr_text();
  EXPECT_NE(err.find("a second signal stops at once"), std::string::npos) << err;
  EXPECT_NE(err.find("stopped by a second signal 15"), std::string::npos) << err;
}

TEST(TranslateServerApp, SixteenConcurrentClientsGetCheckpointEvalsTranslations) {
  const std::vector<std::string> sentences = {
      "I want the newspaper.", "I do not see the door.", "I have a car.",         "I open the door.",
      "You see the book.",     "He wants fish.",         "He has coffee.",        "She sees an apple.",
      "She needs the water.",  "We drink the water.",    "We see the cat.",       "They want the door.",
      "They have the house.",  "Is the dog small?",      "The door is black.",    "Is the table white?",
      "We buy the cake.",      "He buys a car.",         "They open the window.", "You need the door."};
  const auto checkpoint = served_checkpoint();
  // What checkpoint_eval prints, greedy and with 3 beams: one line per sentence.
  std::string args = checkpoint + " --threads 1 --log-level warn";
  for (const auto& s : sentences) args += " --translate \"" + s + "\"";
  const auto greedy = test::run_program("apps/checkpoint_eval", args, "server_reference_greedy");
  const auto beam = test::run_program("apps/checkpoint_eval", args + " --beam 3", "server_reference_beam");
  ASSERT_EQ(greedy.status, 0) << greedy.err;
  ASSERT_EQ(beam.status, 0) << beam.err;
  const auto expected_greedy = test::lines_of(greedy.out), expected_beam = test::lines_of(beam.out);
  ASSERT_EQ(expected_greedy.size(), sentences.size()) << greedy.out;
  ASSERT_EQ(expected_beam.size(), sentences.size()) << beam.out;

  test::TranslateServerProcess server(checkpoint, {"--batch-wait-ms", "10", "--max-batch", "16"}, "concurrent");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  constexpr int kClients = 16, kRequestsEach = 6;
  std::atomic<int> answered{0}, batched{0};
  std::vector<std::string> problems(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto client = server.client();
      for (int r = 0; r < kRequestsEach; ++r) {
        // Each client its own mix: one or two sentences, greedy or beam.
        const auto i = static_cast<std::size_t>(c * kRequestsEach + r) % sentences.size();
        const auto j = (i + 7) % sentences.size();
        const bool use_beam = (c + r) % 3 == 0;
        std::vector<std::string> mine = {sentences[i]};
        if (r % 2 == 1) mine.push_back(sentences[j]);
        const auto res = client->Post("/translate", json({{"sentences", mine}, {"beam", use_beam ? 3 : 1}}).dump(),
                                      "application/json");
        if (!res || res->status != 200) {
          problems[c] += "request failed (" +
                         (res ? std::to_string(res->status) + " " + res->body : httplib::to_string(res.error())) +
                         "); ";
          continue;
        }
        const auto body = json::parse(res->body);
        const auto& expected = use_beam ? expected_beam : expected_greedy;
        for (std::size_t k = 0; k < mine.size(); ++k) {
          const auto got = body["translations"][k].value("translation", std::string("<none>"));
          const auto want = expected[k == 0 ? i : j];
          if (got != want) problems[c] += "'" + mine[k] + "': '" + got + "' != '" + want + "'; ";
        }
        ++answered;
        if (body["batch_sentences"].get<std::size_t>() > mine.size()) ++batched;
      }
    });
  }
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(problems[c], "") << "client " << c;
  EXPECT_EQ(answered, kClients * kRequestsEach);
  EXPECT_GT(batched, 0) << "no request was decoded together with another client's";
}

}  // namespace
}  // namespace dls::apps
