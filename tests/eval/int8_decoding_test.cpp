// Translations with int8 linear layers (--quantize int8) against fp32 on the tiny trained
// run: sentence by sentence (the one-row int8 kernel) and in one batch (onednn's dynamic
// int8), most of 200 sentences of the sample corpus come out the same as fp32.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "dls/eval/translator.h"
#include "dls/layers/int8_linear.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"

namespace dls::eval::int8_decoding_test {
namespace {

std::vector<std::string> sample_sentences(std::size_t count) {
  std::ifstream in(dls::testing::sample_corpus());
  std::vector<std::string> sentences;
  for (std::string line; sentences.size() < count && std::getline(in, line);) {
    sentences.push_back(line.substr(0, line.find('\t')));
  }
  return sentences;
}

std::vector<std::string> texts_of(const std::vector<SentenceTranslation>& translations) {
  std::vector<std::string> texts;
  for (const auto& t : translations) texts.push_back(t.text);
  return texts;
}

double share_equal(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return static_cast<double>(same) / static_cast<double>(a.size());
}

TEST(Int8Decoding, MostTranslationsAreFp32sOneByOneAndInABatch) {
  if (!int8_engine_problem().empty()) GTEST_SKIP() << int8_engine_problem();
  const auto sentences = sample_sentences(200);
  auto translator = Translator::load(test::trained_seq2seq_run().string());
  const auto fp32 = texts_of(translator.translate(sentences));
  set_int8_linear_enabled(true);
  const auto batched = texts_of(translator.translate(sentences));
  std::vector<std::string> one_by_one;
  for (std::size_t i = 0; i < sentences.size(); i += 4) one_by_one.push_back(translator.translate(sentences[i]).text);
  set_int8_linear_enabled(false);
  std::vector<std::string> fp32_sampled;
  for (std::size_t i = 0; i < sentences.size(); i += 4) fp32_sampled.push_back(fp32[i]);
  EXPECT_GE(share_equal(batched, fp32), 0.85);
  EXPECT_GE(share_equal(one_by_one, fp32_sampled), 0.85);
  // Switched off again: fp32's translations exactly.
  EXPECT_EQ(texts_of(translator.translate(sentences)), fp32);
}

}  // namespace
}  // namespace dls::eval::int8_decoding_test
