// TranslateServer in this process (the program's end-to-end tests: tests/apps/
// translate_server_test.cpp): it binds a free port, answers, and stop() ends serve() --
// also when it comes before serve() starts.
#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include "dls/serve/translate_server.h"
#include "dls_httplib.h"
#include "support/seq2seq_runs.h"

namespace dls::serve {
namespace {

ServeSettings in_process_settings() {
  ServeSettings settings;
  settings.port = 0;
  settings.http.connections = 4;
  return settings;
}

TEST(TranslateServer, ServesOnAFreePortUntilStopped) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  TranslateServer server(translator, in_process_settings());
  const int port = server.bind();
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.serve(); });
  httplib::Client client("127.0.0.1", port);
  const auto res =
      client.Post("/translate", R"({"sentences": ["I have a car.", "I open the door."]})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  const auto body = nlohmann::json::parse(res->body);
  const auto direct = translator.translate(std::vector<std::string>{"I have a car.", "I open the door."});
  EXPECT_EQ(body["translations"][0]["translation"], direct[0].text);
  EXPECT_EQ(body["translations"][1]["translation"], direct[1].text);
  server.stop();
  serving.join();  // returns: the test would hang otherwise
  EXPECT_FALSE(client.Get("/health"));
}

TEST(TranslateServer, StopBeforeServeAndABusyPortAreHandled) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  TranslateServer first(translator, in_process_settings());
  const int port = first.bind();
  first.stop();
  first.serve();  // returns at once
  auto settings = in_process_settings();
  settings.port = port;
  TranslateServer second(translator, settings);  // the port is still bound by `first`
  try {
    second.bind();
    ADD_FAILURE() << "bound a port in use";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos);
  }
}

}  // namespace
}  // namespace dls::serve
