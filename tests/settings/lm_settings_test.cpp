// A language model's data settings that its data's form would ignore are refused: subword
// settings without SentencePiece, sentence settings on running text, and the running text's
// held-out fraction on sentences (compared by value with the preset's, as a config.toml
// repeats every setting).
#include "dls/settings/lm_settings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/error_of.h"
#include "support/key_names.h"
#include "support/small_models.h"

namespace dls::settings::lm_settings_test {
namespace {

std::string refusal_of(const LmTrainSettings& asked, const LmTrainSettings& preset, bool resuming = false) {
  return test::error_of<std::runtime_error>([&] { asked.check_data(preset, resuming); });
}

TEST(LmSettings, DataSettingsTheDataWouldIgnoreAreRefused) {
  const LmTrainSettings sentences;
  EXPECT_EQ(refusal_of(sentences, sentences), "");
  auto pieces = sentences;
  pieces.data.subwords.vocab_size += 1;
  EXPECT_EQ(refusal_of(pieces, sentences), "--vocab-size: needs --tokenizer sentencepiece");
  EXPECT_EQ(refusal_of(pieces, sentences, true), "") << "a resume reads its tokenizer from the checkpoint";
  auto capped = sentences;
  capped.data.min_count = 3;
  EXPECT_EQ(refusal_of(capped, sentences), "");
  capped.data.subword_units = true;
  EXPECT_EQ(refusal_of(capped, sentences),
            "--min-count: words or characters only; with --tokenizer sentencepiece, --vocab-size sizes the vocabulary");
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

// The model's keys under "model." -- the ones checkpoints have always had -- and back.
TEST(LmSettings, TheModelsKeysRoundTrip) {
  LmTrainSettings s;
  s.model.transformer(testing::block_config(Variant::kPreLN, Layout::kVaswani, 24, 3, 9).dropout(0.25));
  s.model.num_decoders(5).vocab_size(123);
  const auto keys = s.to_settings().section("model");
  EXPECT_EQ(test::sorted_keys(keys),
            (std::vector<std::string>{"num_decoders", "transformer.dropout", "transformer.embedding_size",
                                      "transformer.ffn_multiplier", "transformer.layout", "transformer.max_seq_length",
                                      "transformer.num_heads", "transformer.variant", "vocab_size"}));
  EXPECT_EQ(keys.get("transformer.variant"), "PreLN");
  const auto back = LmTrainSettings::from_settings(s.to_settings());
  EXPECT_EQ(back.to_settings().to_text(), s.to_settings().to_text());
  EXPECT_EQ(back.model.summary(), "PreLN/vaswani M=24 L=9 H=3 dec=5 vocab=123 ffn=4M dropout=0.25");
}

}  // namespace
}  // namespace dls::settings::lm_settings_test
