// Seq2SeqTrainSettings as checkpoint keys: the languages, direction, corpus files and token
// budget round-trip, and a checkpoint written before them reads as DLStudio's English -> Spanish;
// what the command line asks of the architecture a run does not train is refused; parallel
// files name their languages, and a corpus that does not hold together is refused in one line.
#include "dls/settings/seq2seq_settings.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/key_names.h"

namespace dls::settings {
namespace {

TEST(Seq2SeqSettings, LanguagesFilesAndTokenBudgetRoundTrip) {
  Seq2SeqTrainSettings s;
  s.data.train_src = "/data/train.de";
  s.data.train_tgt = "/data/train.en";
  s.data.valid_src = "/data/valid.de";
  s.data.valid_tgt = "/data/valid.en";
  s.data.test_src = "/data/test.de";
  s.data.test_tgt = "/data/test.en";
  s.data.src_column = 3;
  s.data.tgt_column = 1;
  s.data.src_lang = "de";
  s.data.tgt_lang = "en";
  s.data.reverse = true;
  s.max_tokens = 4096;
  const auto back = Seq2SeqTrainSettings::from_settings(s.to_settings());
  EXPECT_EQ(back.to_settings().to_text(), s.to_settings().to_text());
  EXPECT_EQ(back.data.source_language(), "en") << "reversed";
  EXPECT_EQ(back.data.target_language(), "de");
  EXPECT_EQ(back.data.corpus_name(), "/data/train.de + /data/train.en");
}

TEST(Seq2SeqSettings, AnOlderCheckpointReadsAsEnglishToSpanish) {
  Seq2SeqTrainSettings s;
  s.data.data_path = "/data/spa.txt";
  const std::set<std::string> newer{"train_src",  "train_tgt",  "valid_src", "valid_tgt", "test_src", "test_tgt",
                                    "src_column", "tgt_column", "src_lang",  "tgt_lang",  "reverse",  "max_tokens"};
  util::KeyValues older;
  const auto current = s.to_settings();
  older.merge(current.section("model"), "model");
  const auto training = current.section("training");
  for (const auto& [key, value] : training.entries()) {
    if (newer.count(key) == 0) older.set("training." + key, value);
  }
  const auto back = Seq2SeqTrainSettings::from_settings(older);
  EXPECT_EQ(back.data.source_language(), "en");
  EXPECT_EQ(back.data.target_language(), "es");
  EXPECT_FALSE(back.data.reverse);
  EXPECT_EQ(back.data.src_column, 1);
  EXPECT_EQ(back.data.tgt_column, 2);
  EXPECT_EQ(back.max_tokens, 0);
  EXPECT_EQ(back.data.corpus_name(), "/data/spa.txt");
}

// The validation fraction travels with the run; a checkpoint written before it held out
// exactly validation_pairs, and reads back so (fraction 0).
TEST(Seq2SeqSettings, ValidationFractionRoundTripsAndOlderRunsHoldOutTheCount) {
  Seq2SeqTrainSettings s;
  EXPECT_DOUBLE_EQ(s.data.validation_fraction, 0.1);
  s.data.validation_fraction = 0.05;
  s.data.validation_pairs = 300;
  const auto saved = s.to_settings();
  const auto back = Seq2SeqTrainSettings::from_settings(saved);
  EXPECT_DOUBLE_EQ(back.data.validation_fraction, 0.05);
  EXPECT_EQ(back.data.validation_pairs, 300);
  util::KeyValues older;
  for (const auto& [key, value] : saved.entries()) {
    if (key != "training.validation_fraction") older.set(key, value);
  }
  EXPECT_EQ(Seq2SeqTrainSettings::from_settings(older).data.validation_fraction, 0.0);
}

TEST(Seq2SeqSettings, SettingsOfTheArchitectureARunDoesNotTrainAreRefused) {
  Seq2SeqTrainSettings transformer;  // the defaults: a transformer run
  Seq2SeqTrainSettings rnn;
  rnn.architecture = Architecture::kRnnAttention;
  const auto refused = [](const Seq2SeqTrainSettings& asked, const Seq2SeqTrainSettings& preset) {
    try {
      asked.check_architecture(preset);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(refused(transformer, transformer), "");
  EXPECT_EQ(refused(rnn, rnn), "");
  EXPECT_EQ(refused(transformer, rnn), "");  // --architecture transformer over an RNN preset
  auto sized = rnn;
  sized.model.num_encoders(sized.model.num_encoders() + 1);
  EXPECT_NE(refused(sized, rnn).find("a transformer's settings"), std::string::npos);
  auto recurrent = transformer;
  recurrent.rnn.hidden_size += 1;
  EXPECT_NE(refused(recurrent, transformer).find("an RNN's settings"), std::string::npos);
  recurrent = transformer;
  recurrent.teacher_forcing = 0.5;
  EXPECT_NE(refused(recurrent, transformer).find("--teacher-forcing"), std::string::npos);
  auto unbuildable = rnn;  // dot attention needs the encoder's and decoder's sizes equal
  unbuildable.rnn.score = AttentionScore::kDot;
  unbuildable.rnn.bidirectional = true;
  EXPECT_NE(refused(unbuildable, unbuildable).find("--architecture rnn-attention: "), std::string::npos);
}

// Subword settings need --tokenizer sentencepiece, tied embeddings one vocabulary for both
// languages and the vaswani layout (a new run's; a resume keeps what its run tied).
TEST(Seq2SeqSettings, SubwordAndTiedEmbeddingSettingsThatCannotHoldAreRefused) {
  const auto refusal = [](const Seq2SeqTrainSettings& asked, bool resuming) {
    try {
      asked.check_subwords(resuming);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  Seq2SeqTrainSettings words;
  EXPECT_EQ(refusal(words, false), "");
  auto joint = words;
  joint.data.subwords.joint = true;
  EXPECT_EQ(refusal(joint, false), "--joint-vocab: needs --tokenizer sentencepiece");
  auto sized = words;
  sized.data.subwords.vocab_size += 1;
  EXPECT_EQ(refusal(sized, true), "--vocab-size: needs --tokenizer sentencepiece");
  auto capped = words;
  capped.data.min_count = 2;
  capped.data.max_vocab = 100;
  EXPECT_EQ(refusal(capped, false), "");
  capped.data.subword_units = true;
  EXPECT_EQ(refusal(capped, false),
            "--min-count: word level only; with --tokenizer sentencepiece, --vocab-size sizes the vocabularies");
  capped.data.min_count = 1;
  EXPECT_EQ(refusal(capped, false).substr(0, 12), "--max-vocab:");
  auto tied = words;
  tied.model.tie_embeddings(true);
  EXPECT_NE(refusal(tied, false).find("--tie-embeddings: needs one vocabulary"), std::string::npos);
  EXPECT_EQ(refusal(tied, true), "") << "a resume keeps what its run tied";
  tied.data.subword_units = true;
  tied.data.subwords.joint = true;
  tied.model.transformer().layout(Layout::kVaswani);
  EXPECT_EQ(refusal(tied, false), "");
  tied.model.transformer().layout(Layout::kPositionwise);
  EXPECT_NE(refusal(tied, false).find("--tie-embeddings: needs the vaswani layout"), std::string::npos);
}

// The model's keys under "model." -- the ones checkpoints have always had -- and back; a
// model section from before --no-masking was masked, and one from before dlstudio_outputs
// has DLStudio's outputs when the run trained with DLStudio's loss.
TEST(Seq2SeqSettings, TheModelsKeysRoundTripAndOlderOnesRead) {
  Seq2SeqTrainSettings s;
  s.model.transformer().layout(Layout::kVaswani).embedding_size(32).num_heads(4).max_seq_length(12);
  s.model.num_encoders(2).num_decoders(3).src_vocab_size(50).tgt_vocab_size(60).pad_index(0).masking(false);
  const auto all = s.to_settings();
  EXPECT_EQ(test::sorted_keys(all.section("model")),
            (std::vector<std::string>{"dlstudio_outputs", "masking", "num_decoders", "num_encoders", "pad_index",
                                      "src_vocab_size", "tgt_vocab_size", "tie_embeddings", "transformer.dropout",
                                      "transformer.embedding_size", "transformer.ffn_multiplier", "transformer.layout",
                                      "transformer.max_seq_length", "transformer.num_heads", "transformer.variant"}));
  const auto back = Seq2SeqTrainSettings::from_settings(all);
  EXPECT_EQ(back.to_settings().to_text(), all.to_text());
  EXPECT_EQ(back.model.summary(), s.model.summary());
  EXPECT_FALSE(back.model.masking());
  const auto without = [&](const std::string& gone, bool dlstudio_loss) {
    util::KeyValues old;
    for (const auto& [key, value] : all.entries()) {
      if (key != gone) old.set(key, key == "training.dlstudio_loss" ? (dlstudio_loss ? "true" : "false") : value);
    }
    return Seq2SeqTrainSettings::from_settings(old).model;
  };
  EXPECT_TRUE(without("model.masking", false).masking());
  EXPECT_FALSE(without("model.tie_embeddings", false).tie_embeddings());
  EXPECT_FALSE(without("model.dlstudio_outputs", false).dlstudio_outputs());
  EXPECT_TRUE(without("model.dlstudio_outputs", true).dlstudio_outputs());
}

TEST(Seq2SeqSettings, ParallelFilesNameTheLanguagesNotAskedFor) {
  Seq2SeqTrainSettings settings;
  settings.data.train_src = "corpus/train.de";
  settings.data.train_tgt = "corpus/train.txt";  // names none: the default stays
  settings.languages_from_file_names(false, false);
  EXPECT_EQ(settings.data.src_lang, "de");
  EXPECT_EQ(settings.data.tgt_lang, Seq2SeqTrainSettings().data.tgt_lang);
  Seq2SeqTrainSettings asked;
  asked.data.train_src = "corpus/train.de";
  asked.data.train_tgt = "corpus/train.fr";
  asked.data.src_lang = "nl";
  asked.languages_from_file_names(true, false);
  EXPECT_EQ(asked.data.src_lang, "nl");  // the flag wins
  EXPECT_EQ(asked.data.tgt_lang, "fr");
}

TEST(Seq2SeqSettings, ACorpusThatDoesNotHoldTogetherIsRefusedInOneLine) {
  const auto refusal = [](auto change) {
    Seq2SeqTrainSettings settings;
    change(settings.data);
    try {
      settings.check_corpus();
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal([](auto&) {}), "");
  EXPECT_EQ(refusal([](auto& d) { d.train_src = "a.de"; }), "--train-src needs --train-tgt");
  EXPECT_EQ(refusal([](auto& d) { d.valid_tgt = "b.en"; }), "--valid-tgt needs --valid-src");
  EXPECT_EQ(refusal([](auto& d) { d.tgt_column = d.src_column; }).rfind("--src-column and --tgt-column", 0), 0u);
  EXPECT_EQ(refusal([](auto& d) { d.tgt_lang = d.src_lang; }).rfind("--src-lang and --tgt-lang: both are", 0), 0u);
  EXPECT_NE(refusal([](auto& d) { d.tgt_lang = "ja"; }).find("add --tokenizer sentencepiece"), std::string::npos);
}

}  // namespace
}  // namespace dls::settings
