// --quantize int8 end to end on the tiny trained run: checkpoint_eval translates as the
// library does with int8 linear layers, reads a file, and scores the validation set nearly as
// fp32 (validation loss within 0.25 %, chrF within 4 points; eval/int8_decoding_test.cpp
// compares the translations), translate_server answers with them (and under --precision bf16), and what int8 is not for
// is refused in one line.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/eval/translator.h"
#include "dls/layers/int8_linear.h"
#include "dls/util/precision.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/translate_server_process.h"

namespace dls::apps::quantize_app_test {
namespace {

using nlohmann::json;

const std::vector<std::string> kSentences = {"I want to go home.", "Where is my dog?", "She does not want the red car.",
                                             "We are happy.", "He reads a book."};

std::string translate_args(const std::string& flags) {
  std::string args = test::trained_seq2seq_run().string() + " --threads 1 " + flags;
  for (const auto& s : kSentences) args += " --translate \"" + s + "\"";
  return args;
}

// The last checkpoint's scores in checkpoint_eval's --json report.
json checkpoint_score(const std::string& report) { return json::parse(report)["checkpoints"].back(); }

class QuantizeApp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!int8_engine_problem().empty()) GTEST_SKIP() << int8_engine_problem();
  }
};

TEST_F(QuantizeApp, Int8TranslatesAsTheLibraryAndScoresNearlyAsFp32) {
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  set_int8_linear_enabled(true);
  const auto expected = translator.translate(kSentences);
  set_int8_linear_enabled(false);
  const auto int8 = test::run_program("apps/checkpoint_eval", translate_args("--quantize int8"), "quantize_int8");
  ASSERT_EQ(int8.status, 0) << int8.err;
  EXPECT_NE(int8.err.find("; int8 linear layers)"), std::string::npos) << int8.err;
  const auto got = test::lines_of(int8.out);
  ASSERT_EQ(got.size(), kSentences.size()) << int8.out;
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i].text);

  // The validation set's BLEU, one checkpoint.
  const std::string report = test::trained_seq2seq_run().string() + "/best.pt --threads 1 --json";
  const auto scored = test::run_program("apps/checkpoint_eval", report, "quantize_report");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const auto scored_int8 = test::run_program("apps/checkpoint_eval", report + " --quantize int8", "quantize_report8");
  ASSERT_EQ(scored_int8.status, 0) << scored_int8.err;
  // The teacher-forced validation loss sees every int8 product on every target token: over 100
  // trainings of this fixture (seeds 0-49, torch's and dls::Dropout's masks) int8 moved it by at
  // most 0.12 %, and weights of 31 levels (-15..15) instead of 255 move it by 0.34 %. A
  // 100-sentence BLEU of a 3-epoch model is too coarse to hold tight (one flipped greedy choice
  // loses some of its ~140 matching 4-grams): int8 moved it by up to 0.041, and chrF, on
  // characters, by up to 2.1 points.
  const auto fp32_score = checkpoint_score(scored.out), int8_score = checkpoint_score(scored_int8.out);
  EXPECT_NEAR(int8_score["val_loss"].get<double>(), fp32_score["val_loss"].get<double>(),
              0.0025 * fp32_score["val_loss"].get<double>())
      << scored_int8.out << "\n"
      << scored.out;
  EXPECT_NEAR(int8_score["chrf"]["score"].get<double>(), fp32_score["chrf"]["score"].get<double>(), 4.0)
      << scored_int8.out << "\n"
      << scored.out;
  EXPECT_EQ(json::parse(scored_int8.out)["linear_weights"], "int8");
  EXPECT_EQ(json::parse(scored.out)["linear_weights"], "fp32");
}

TEST_F(QuantizeApp, AFileIsTranslatedWholeWithInt8) {
  std::string input;
  for (const auto& s : kSentences) input += s + "\n";
  const auto run = test::run_program("apps/checkpoint_eval",
                                     test::trained_seq2seq_run().string() + " --threads 1 --quantize int8 --input -",
                                     "quantize_input", input, "", test::Stdin::kPipe);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(test::lines_of(run.out).size(), kSentences.size()) << run.out;
}

TEST_F(QuantizeApp, TheServerTranslatesWithInt8) {
  test::TranslateServerProcess server(test::trained_seq2seq_run().string(), {"--quantize", "int8"}, "quantize_server",
                                      "info");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto answer = server.client()->Post("/translate", json({{"sentences", kSentences}}).dump(), "application/json");
  ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
  EXPECT_EQ(json::parse(answer->body)["translations"].size(), kSentences.size());
  EXPECT_NE(server.process().stderr_text().find("int8 weights: "), std::string::npos) << server.process().stderr_text();
}

// The programs' decision, on any machine: int8 for a translation model on the CPU only (a GPU
// run, another kind of checkpoint or bf16/fp16 autocast is refused before anything loads).
TEST(QuantizeFlag, Int8IsSwitchedOnForATranslationModelOnTheCpuOnly) {
  const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 0);
  const auto refusal = [](const std::string& kind, const torch::Device& device, bool autocast) {
    try {
      apply_quantize("int8", kind, device, autocast);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  apply_quantize("none", "seq2seq", cuda, true);  // nothing asked, nothing refused
  EXPECT_FALSE(int8_linear_enabled());
  EXPECT_NE(refusal("seq2seq", cuda, false).find("--quantize int8: on the CPU, not cuda:0"), std::string::npos);
  EXPECT_NE(refusal("vit", cpu, false).find("for translation models, not a vit checkpoint"), std::string::npos);
  EXPECT_NE(refusal("seq2seq", cpu, true).find("not with --precision bf16 or fp16"), std::string::npos);
  EXPECT_FALSE(int8_linear_enabled());
  if (!int8_engine_problem().empty()) GTEST_SKIP() << int8_engine_problem();
  EXPECT_EQ(refusal("seq2seq", cpu, false), "");
  EXPECT_TRUE(int8_linear_enabled());
  set_int8_linear_enabled(false);
}

// The server's --precision bf16: decoding under autocast on the model's thread and its chunks.
TEST(ServerPrecision, TheServerTranslatesUnderBf16AutocastAsAsked) {
  test::TranslateServerProcess server(test::trained_seq2seq_run().string(), {"--precision", "bf16"}, "bf16_server");
  ASSERT_GT(server.port(), 0) << server.process().stderr_text();
  const auto answer = server.client()->Post("/translate", json({{"sentences", kSentences}}).dump(), "application/json");
  ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
  const auto translations = json::parse(answer->body)["translations"];
  ASSERT_EQ(translations.size(), kSentences.size());
  auto translator = eval::Translator::load(test::trained_seq2seq_run().string());
  std::vector<eval::SentenceTranslation> expected;
  {
    const util::AutocastScope bf16(util::autocast_for(util::Precision::kBf16, c10::Device(c10::kCPU)));
    expected = translator.translate(kSentences);
  }
  for (std::size_t i = 0; i < kSentences.size(); ++i) EXPECT_EQ(translations[i]["translation"], expected[i].text);
}

TEST_F(QuantizeApp, WhatInt8IsNotForIsRefusedInOneLine) {
  const std::string run = test::trained_seq2seq_run().string() + " --threads 1 --translate hi --quantize int8 ";
  test::expect_one_line_error(test::run_program("apps/checkpoint_eval", run + "--precision bf16", "quantize_bf16"),
                              "--quantize int8: not with --precision bf16");
  const auto rnn = test::run_program(
      "apps/checkpoint_eval", test::trained_rnn_seq2seq_run().string() + " --threads 1 --translate hi --quantize int8",
      "quantize_rnn");
  test::expect_one_line_error(rnn, "int8 linear layers (--quantize int8) are for transformers");
  test::expect_one_line_error(test::run_program("apps/checkpoint_eval", run + "--quantize int4", "quantize_int4"),
                              "--quantize", test::kAnyFailure);
}

}  // namespace
}  // namespace dls::apps::quantize_app_test
