// A language model's data settings that its data's form would ignore are refused: subword
// settings without SentencePiece, sentence settings on running text, and the running text's
// held-out fraction on sentences (compared by value with the preset's, as a config.toml
// repeats every setting).
#include "dls/settings/lm_settings.h"

#include <gtest/gtest.h>

#include <string>

namespace dls::settings::lm_settings_test {
namespace {

std::string refusal_of(const LmTrainSettings& asked, const LmTrainSettings& preset, bool resuming = false) {
  try {
    asked.check_data(preset, resuming);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(LmSettings, DataSettingsTheDataWouldIgnoreAreRefused) {
  const LmTrainSettings sentences;
  EXPECT_EQ(refusal_of(sentences, sentences), "");
  auto pieces = sentences;
  pieces.data.subwords.vocab_size += 1;
  EXPECT_EQ(refusal_of(pieces, sentences), "--vocab-size: needs --tokenizer sentencepiece");
  EXPECT_EQ(refusal_of(pieces, sentences, true), "") << "a resume reads its tokenizer from the checkpoint";
  auto fraction = sentences;
  fraction.data.validation_fraction = 0.3;
  EXPECT_NE(refusal_of(fraction, sentences).find("--validation-fraction: needs --block-size"), std::string::npos);

  auto running = sentences;
  running.data.block_size = 64;
  EXPECT_EQ(refusal_of(running, sentences), "");
  auto words = running;
  words.data.max_words += 1;
  EXPECT_NE(refusal_of(words, sentences).find("--max-words: sentences only"), std::string::npos);
  auto held_out = running;
  held_out.data.validation_sentences += 1;
  EXPECT_NE(refusal_of(held_out, sentences).find("--validation-sentences: sentences only"), std::string::npos);
  held_out = running;
  held_out.data.validation_fraction = 0.3;
  EXPECT_EQ(refusal_of(held_out, sentences), "");
}

}  // namespace
}  // namespace dls::settings::lm_settings_test
