// One run directory, one model: given a run whose best.pt is not its newest checkpoint, the
// library (Translator::load), checkpoint_eval --translate and translate_server all translate
// with best.pt, name it, and give the same translations.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_id.h"
#include "dls/eval/translator.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/translate_server_process.h"
#include "util/temp_files.h"

namespace dls::apps {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(CheckpointChoiceApp, EveryProgramTranslatesWithBestPtWhenItIsNotTheNewest) {
  // The tiny run's checkpoints, with best.pt the first epoch's (the newest is the third's).
  const auto run = test::fresh_temp_dir("checkpoint_choice_run");
  fs::copy(test::trained_seq2seq_run() / "checkpoints", run / "checkpoints");
  const auto files = checkpoint::find_checkpoints(run.string());
  ASSERT_EQ(files.size(), 3u);
  fs::copy_file(files.front(), run / "best.pt");
  const auto best = (run / "best.pt").string();
  ASSERT_EQ(checkpoint::open_run_checkpoint(run.string()).path(), best);
  ASSERT_NE(checkpoint::latest_checkpoint(run.string()), best);

  const std::vector<std::string> sentences = {
      "I want to go home.", "Where is my dog?", "She does not want the red car.",
      "I want the newspaper, you see the book, he wants the fish, she needs the water, we drink the water."};
  auto translator = eval::Translator::load(run.string());
  EXPECT_EQ(translator.checkpoint_file(), best);
  const auto expected = translator.translate(sentences);

  std::string args = run.string() + " --threads 1 --json";
  for (const auto& s : sentences) args += " --translate \"" + s + "\"";
  const auto cli = test::run_program("apps/checkpoint_eval", args, "checkpoint_choice_cli");
  ASSERT_EQ(cli.status, 0) << cli.err;
  EXPECT_NE(cli.err.find("translating with " + best + " (epoch 1, validation BLEU "), std::string::npos) << cli.err;
  const auto lines = test::lines_of(cli.out);
  ASSERT_EQ(lines.size(), sentences.size()) << cli.out;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    const auto line = json::parse(lines[i]);
    EXPECT_EQ(line["checkpoint"], best);
    EXPECT_EQ(line["translation"], expected[i].text) << sentences[i];
    EXPECT_EQ(line.value("note", ""), expected[i].note);
  }

  test::TranslateServerProcess server(run.string(), {}, "checkpoint_choice", "info");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  EXPECT_NE(server.process().stderr_text().find("serving " + best + " (epoch 1, validation BLEU "), std::string::npos)
      << server.process().stderr_text();
  const auto model = server.client()->Get("/model");
  ASSERT_TRUE(model);
  EXPECT_EQ(json::parse(model->body)["checkpoint"], best);
  const auto answer = server.client()->Post("/translate", json({{"sentences", sentences}}).dump(), "application/json");
  ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
  const auto translations = json::parse(answer->body)["translations"];
  ASSERT_EQ(translations.size(), sentences.size());
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    EXPECT_EQ(translations[i]["translation"], expected[i].text) << sentences[i];
    EXPECT_EQ(translations[i].value("note", ""), expected[i].note);
  }
  EXPECT_FALSE(expected.back().note.empty());
}

}  // namespace
}  // namespace dls::apps
