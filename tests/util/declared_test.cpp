// util/declared.h: a settings struct's one declaration gives its checkpoint keys both
// ways -- every field type, properties, sections, what an older checkpoint without a key
// means, errors that name the key -- and the three tasks' settings still write exactly the
// keys their checkpoints have always had (so that every checkpoint written before loads).
#include "dls/util/declared.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/settings/lm_settings.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/settings/vit_settings.h"
#include "support/error_of.h"

namespace dls {
namespace declared_test {
namespace {

using util::Setting;

enum class Colour { kRed, kBlue };

struct Inner {
  double rate = 0.5;
  template <typename Fields>
  static void declare(Inner& s, Fields& f) {
    f(s.rate, Setting("rate", "--rate", "a rate"));
  }
};

struct Sample {
  std::string name = "a";
  bool on = false;
  int count = 3;
  std::int64_t steps = -7;
  std::uint64_t seed = 18446744073709551615ull;
  std::size_t images = 12;
  double lr = 0.1;
  Colour colour = Colour::kRed;
  int added_later = 9;    // older checkpoints: absent, meant 0
  int optional_one = 11;  // older checkpoints: absent, keeps the default
  std::string flag_only = "not saved";
  Inner inner;

  template <typename Fields>
  static void declare(Sample& s, Fields& f) {
    f(s.name, Setting("name", "--name", ""));
    f(s.on, Setting("on", "--on", "").as_switch());
    f(s.count, Setting("count", "--count", ""));
    f(s.steps, Setting("steps", "--steps", ""));
    f(s.seed, Setting("seed", "--seed", ""));
    f(s.images, Setting("images", "--images", ""));
    f(s.lr, Setting("lr", "--lr", ""));
    f.property(
        Setting("colour", "--colour", ""), [&] { return std::string(s.colour == Colour::kRed ? "red" : "blue"); },
        [&](const std::string& name) {
          if (name != "red" && name != "blue") throw std::invalid_argument("unknown colour '" + name + "'");
          s.colour = name == "red" ? Colour::kRed : Colour::kBlue;
        });
    f(s.added_later, Setting("added_later", "--added-later", "").when_absent("0"));
    f(s.optional_one, Setting("optional_one", "--optional-one", "").default_when_absent());
    f(s.flag_only, Setting("", "--flag-only", ""));
    f.group("Data");
    f.section("inner", [&] { Inner::declare(s.inner, f); });
  }
};

Sample changed() {
  Sample s;
  s.name = "a=b\nc";
  s.on = true;
  s.count = -4;
  s.steps = 1234567890123;
  s.seed = 42;
  s.images = 99;
  s.lr = 0.1 + 0.2;  // not a short decimal: must round-trip exactly
  s.colour = Colour::kBlue;
  s.added_later = 5;
  s.optional_one = 6;
  s.flag_only = "changed";
  s.inner.rate = 1e-300;
  return s;
}

TEST(DeclaredSettings, EveryKindOfFieldRoundTripsThroughItsKeys) {
  const Sample s = changed();
  const auto saved = util::KeyValues::from_text(util::saved_settings(s).to_text(), "test");
  EXPECT_EQ(saved.get("lr"), "0.30000000000000004");
  EXPECT_EQ(saved.get("colour"), "blue");
  EXPECT_FALSE(saved.has("flag_only"));  // no key: not saved
  Sample read;
  util::read_saved_settings(saved, read);
  EXPECT_EQ(read.name, s.name);
  EXPECT_EQ(read.on, s.on);
  EXPECT_EQ(read.count, s.count);
  EXPECT_EQ(read.steps, s.steps);
  EXPECT_EQ(read.seed, s.seed);
  EXPECT_EQ(read.images, s.images);
  EXPECT_EQ(read.lr, s.lr);
  EXPECT_EQ(read.colour, s.colour);
  EXPECT_EQ(read.added_later, 5);
  EXPECT_EQ(read.optional_one, 6);
  EXPECT_EQ(read.flag_only, "not saved");
  EXPECT_EQ(read.inner.rate, s.inner.rate);
}

TEST(DeclaredSettings, AnOlderCheckpointWithoutAKeyReadsAsDeclared) {
  auto saved = util::saved_settings(changed());
  util::KeyValues older;
  for (const auto& [key, value] : saved.entries()) {
    if (key != "added_later" && key != "optional_one") older.set(key, value);
  }
  Sample read;
  util::read_saved_settings(older, read);
  EXPECT_EQ(read.added_later, 0);    // what runs before the key did
  EXPECT_EQ(read.optional_one, 11);  // the default
}

// The message reading `saved` with `key` set to `text` (or removed, for "") fails with.
std::string refusal(const std::string& key, const std::string& text) {
  auto saved = util::saved_settings(Sample{});
  util::KeyValues edited;
  edited.set_source("run/checkpoints/epoch_0001.pt");
  for (const auto& [k, v] : saved.entries()) {
    if (k != key) edited.set(k, v);
  }
  if (!text.empty()) edited.set(key, text);
  return test::error_of<std::runtime_error>([&] {
    Sample read;
    util::read_saved_settings(edited, read);
  });
}

TEST(DeclaredSettings, AMissingOrMalformedKeyIsNamed) {
  EXPECT_EQ(refusal("count", ""), "run/checkpoints/epoch_0001.pt: missing setting 'count'");
  EXPECT_EQ(refusal("inner.rate", ""), "run/checkpoints/epoch_0001.pt: missing setting 'inner.rate'");
  EXPECT_EQ(refusal("count", "4x"), "run/checkpoints/epoch_0001.pt: setting 'count' = '4x' is not an integer in range");
  EXPECT_EQ(refusal("count", "99999999999"),
            "run/checkpoints/epoch_0001.pt: setting 'count' = '99999999999' is not an integer in range");
  EXPECT_EQ(refusal("seed", "-1"),
            "run/checkpoints/epoch_0001.pt: setting 'seed' = '-1' is not a whole number >= 0 in range");
  EXPECT_EQ(refusal("on", "yes"), "run/checkpoints/epoch_0001.pt: setting 'on' = 'yes' is not true or false");
  EXPECT_EQ(refusal("inner.rate", "fast"),
            "run/checkpoints/epoch_0001.pt: setting 'inner.rate' = 'fast' is not a number");
  EXPECT_EQ(refusal("colour", "green"), "colour: unknown colour 'green'");
  EXPECT_EQ(refusal("count", "7"), "");
}

TEST(DeclaredSettings, TheStartUpDescriptionListsEachGroupsFlags) {
  EXPECT_EQ(util::describe_settings(changed()),
            (std::vector<std::string>{": name a=b\nc, on, count -4, steps 1234567890123, seed 42, images 99, lr "
                                      "0.30000000000000004, colour blue, added-later 5, optional-one 6, flag-only "
                                      "changed",
                                      "Data: rate 1e-300"}));
  EXPECT_EQ(util::describe_settings(Sample{})[0].find("on,"), std::string::npos) << "a switch that is off";
  settings::ViTTrainSettings vit;
  const auto lines = util::describe_settings(vit);
  ASSERT_EQ(lines.size(), 4u);  // Data, Model, Training, Output (the data-parallel flags are the invocation's)
  EXPECT_EQ(lines[2].rfind("Training: epochs 60, batch-size 48, schedule constant, lr 0.0001, min-lr 0,", 0), 0u)
      << lines[2];
}

std::set<std::string> keys_of(const util::KeyValues& settings, const std::string& skip_prefix) {
  std::set<std::string> keys;
  for (const auto& [key, value] : settings.entries()) {
    if (key.rfind(skip_prefix, 0) != 0) keys.insert(key);
  }
  return keys;
}

std::set<std::string> prefixed(const std::string& prefix, std::initializer_list<const char*> names) {
  std::set<std::string> keys;
  for (const char* name : names) keys.insert(prefix + name);
  return keys;
}

std::set<std::string> joined(std::initializer_list<std::set<std::string>> parts) {
  std::set<std::string> all;
  for (const auto& part : parts) all.insert(part.begin(), part.end());
  return all;
}

// The keys the tasks' checkpoints have always had (the model's own keys aside).
TEST(DeclaredSettings, EachTaskWritesTheKeysItsCheckpointsHaveAlwaysHad) {
  const auto optimizer = {"kind", "beta1", "beta2", "eps", "weight_decay", "clip_grad_norm"};
  const auto selection = {"best_metric", "patience", "ema_decay"};
  const auto run = {"time_limit_s", "device", "precision", "checkpoint_every", "keep_last", "log_every", "tensorboard"};
  EXPECT_EQ(keys_of(settings::Seq2SeqTrainSettings{}.to_settings(), "model."),
            joined({prefixed("training.", {"data_path",        "train_src",
                                           "train_tgt",        "valid_src",
                                           "valid_tgt",        "test_src",
                                           "test_tgt",         "src_column",
                                           "tgt_column",       "src_lang",
                                           "tgt_lang",         "reverse",
                                           "max_words",        "min_count",
                                           "max_vocab",        "split_seed",
                                           "validation_pairs", "validation_fraction",
                                           "dlstudio_loss",    "tokenizer",
                                           "subwords.model",   "subwords.vocab_size",
                                           "subwords.joint",   "epochs",
                                           "batch_size",       "max_tokens",
                                           "length_buckets",   "static_shapes",
                                           "label_smoothing",  "seed",
                                           "samples",          "bleu_sentences",
                                           "architecture"}),
                    prefixed("training.schedule.",
                             {"kind", "base_lr", "warmup_steps", "total_steps", "min_lr", "embedding_size"}),
                    prefixed("training.optimizer.", optimizer), prefixed("training.selection.", selection),
                    prefixed("training.run.", run)}));
  // An RNN's run adds its own section (a transformer's checkpoints never have it).
  settings::Seq2SeqTrainSettings rnn;
  rnn.architecture = Architecture::kRnnAttention;
  EXPECT_EQ(keys_of(rnn.to_settings(), "training."),
            joined({keys_of(settings::Seq2SeqTrainSettings{}.to_settings(), "training."),
                    prefixed("rnn.", {"cell", "bidirectional", "embedding_size", "hidden_size", "layers", "score",
                                      "placement", "attention_size", "dropout", "teacher_forcing"})}));
  const auto train = {"preset", "batch_size", "epochs", "schedule", "lr", "min_lr", "label_smoothing", "seed"};
  auto lm_train = prefixed("train.", train);
  lm_train.insert("train.warmup_steps");
  EXPECT_EQ(
      keys_of(settings::LmTrainSettings{}.to_settings(), "model."),
      joined({prefixed("data.", {"path", "side", "max_words", "tokenizer", "subwords.model", "subwords.vocab_size",
                                 "min_count", "max_vocab", "validation_sentences", "split_seed",
                                 // running text (read as 0 and 0.1 from checkpoints written before)
                                 "block_size", "validation_fraction"}),
              lm_train, prefixed("optimizer.", optimizer), prefixed("selection.", selection), prefixed("run.", run)}));
  auto vit_train = prefixed("train.", train);
  vit_train.insert("train.warmup_epochs");
  EXPECT_EQ(
      keys_of(settings::ViTTrainSettings{}.to_settings(), "model."),
      joined({prefixed("data.", {"dataset", "data_dir", "image_size", "channels", "train_subset", "test_subset",
                                 "validation_fraction", "split_seed", "normalization", "augment_pad", "augment_flip",
                                 "augment_erase"}),
              vit_train, prefixed("optimizer.", optimizer), prefixed("selection.", selection), prefixed("run.", run)}));
}

TEST(DeclaredSettings, EachTaskReadsBackWhatItWrote) {
  settings::Seq2SeqTrainSettings seq2seq;
  seq2seq.data.src_lang = "de";
  seq2seq.optimizer.kind = settings::OptimizerKind::kAdamW;
  seq2seq.schedule.kind = settings::ScheduleKind::kWarmupCosine;
  seq2seq.selection.best_metric = "loss";
  seq2seq.run.precision = util::Precision::kBf16;
  seq2seq.seed = 18446744073709551615ull;
  const auto text = seq2seq.to_settings().to_text();
  EXPECT_EQ(
      settings::Seq2SeqTrainSettings::from_settings(util::KeyValues::from_text(text, "t")).to_settings().to_text(),
      text);
  settings::LmTrainSettings lm;
  lm.data.subword_units = true;
  lm.schedule = settings::ScheduleKind::kConstant;
  EXPECT_EQ(settings::LmTrainSettings::from_settings(lm.to_settings()).to_settings().to_text(),
            lm.to_settings().to_text());
  settings::ViTTrainSettings vit;
  vit.data.augment.flip = false;
  vit.batch_size = 7;
  EXPECT_EQ(settings::ViTTrainSettings::from_settings(vit.to_settings()).to_settings().to_text(),
            vit.to_settings().to_text());
}

}  // namespace
}  // namespace declared_test
}  // namespace dls
