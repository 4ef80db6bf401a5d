// settings/builtin_presets.h and the files of data/presets: each task's presets read, list
// the names a user may give (not the NAME.VARIANT files), refuse an unknown name listing the
// known ones, and each file sets every setting its siblings set, so that a preset file given
// with --config turns whatever preset the run started from into that one (file A read over
// preset B gives preset A, checkpoint key for key). The values the files hold are pinned where
// a document names them (DLStudio's scripts).
#include "dls/settings/builtin_presets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/seq2seq_presets.h"
#include "dls/train/tasks/vit_presets.h"

namespace dls {
namespace builtin_presets_test {
namespace {

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

TEST(BuiltinPresets, EachTaskListsItsNames) {
  EXPECT_EQ(sorted(train::seq2seq_preset_names()),
            (std::vector<std::string>{"cpu", "dlstudio", "rnn-bahdanau", "rnn-luong"}));
  EXPECT_EQ(sorted(train::lm_preset_names()), (std::vector<std::string>{"cpu", "tiny"}));
  EXPECT_EQ(sorted(train::vit_preset_names()), (std::vector<std::string>{"dlstudio", "fashion"}));
  EXPECT_NE(settings::builtin_preset_text("seq2seq", "dlstudio.PreLN"), nullptr);
  EXPECT_EQ(settings::builtin_preset_text("seq2seq", "nothing"), nullptr);
}

TEST(BuiltinPresets, AnUnknownNameListsTheKnownOnes) {
  try {
    train::lm_preset("large");
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "unknown preset 'large' (expected cpu or tiny)");
  }
  EXPECT_THROW(train::seq2seq_preset("dlstudio.PreLN", Variant::kPreLN), std::invalid_argument)
      << "a variant's file is no preset of its own";
}

// File `name` of `task` read over `start`.
template <typename Settings>
Settings file_over(const std::string& task, const std::string& name, Settings start,
                   const settings::OtherSetting& other = {}) {
  const auto source = settings::builtin_preset_source(task, name);
  settings::read_settings_file(util::parse_toml_subset(*settings::builtin_preset_text(task, name), source), source,
                               start, other);
  return start;
}

TEST(BuiltinPresets, AFileReadOverAnotherPresetGivesItsOwn) {
  for (const auto& a : train::seq2seq_preset_names()) {
    for (const auto& b : train::seq2seq_preset_names()) {
      const auto expected = train::seq2seq_preset(a, Variant::kFG);
      const auto got = file_over("seq2seq", a, train::seq2seq_preset(b, Variant::kFG));
      EXPECT_EQ(got.to_settings().to_text(), expected.to_settings().to_text()) << a << " over " << b;
      // The other architecture's settings too, which a checkpoint leaves out: a transformer's
      // file read over an RNN preset left the RNN's (then --architecture rnn-attention trained
      // the RNN preset's model, not the file's).
      const auto with_rnn = [](settings::Seq2SeqTrainSettings s) {
        s.architecture = Architecture::kRnnAttention;
        return s.to_settings().to_text() + " teacher-forcing " + std::to_string(s.teacher_forcing);
      };
      EXPECT_EQ(with_rnn(got), with_rnn(expected)) << a << " over " << b;
    }
  }
  for (const auto& a : train::lm_preset_names()) {
    for (const auto& b : train::lm_preset_names()) {
      auto got = file_over("lm", a, train::lm_preset(b));
      got.preset = a;  // the name is the program's --preset, no setting of the file
      EXPECT_EQ(got.to_settings().to_text(), train::lm_preset(a).to_settings().to_text()) << a << " over " << b;
    }
  }
  for (const auto& a : train::vit_preset_names()) {
    for (const auto& b : train::vit_preset_names()) {
      std::string dataset;  // vit_train's --dataset, which the files name
      auto got = file_over("vit", a, train::vit_preset(b), [&dataset](const util::TomlItem& item) {
        dataset = item.values.front();
        return item.name == "dataset";
      });
      got.preset = a;
      got.data.dataset = dataset;
      got.adapt_model_to_dataset();
      EXPECT_EQ(got.to_settings().to_text(), train::vit_preset(a).to_settings().to_text()) << a << " over " << b;
    }
  }
}

TEST(BuiltinPresets, DLStudiosScriptsValues) {
  const auto fg = train::seq2seq_preset("dlstudio", Variant::kFG);
  EXPECT_EQ(fg.model.transformer().layout(), Layout::kDLStudio);
  EXPECT_EQ(fg.model.transformer().embedding_size(), 256);
  EXPECT_EQ(fg.model.num_encoders(), 4);
  EXPECT_EQ(fg.batch_size, 50);
  EXPECT_EQ(fg.epochs, 40);
  EXPECT_EQ(fg.schedule.kind, settings::ScheduleKind::kDLStudioWarmup);
  EXPECT_EQ(fg.schedule.warmup_steps, 4000);
  EXPECT_EQ(fg.optimizer.beta2, 0.98);
  EXPECT_EQ(fg.optimizer.eps, 1e-6);
  EXPECT_EQ(fg.run.checkpoint_every, 5);
  EXPECT_EQ(fg.run.keep_last, 0) << "every checkpoint, as DLStudio keeps them (BLEU of each)";
  const auto pre_ln = train::seq2seq_preset("dlstudio", Variant::kPreLN);  // dlstudio.PreLN.toml after
  EXPECT_EQ(pre_ln.model.transformer().variant(), Variant::kPreLN);
  EXPECT_EQ(pre_ln.schedule.kind, settings::ScheduleKind::kConstant);
  EXPECT_EQ(pre_ln.schedule.base_lr, 1e-5);
  EXPECT_EQ(pre_ln.optimizer.beta2, 0.999);
  EXPECT_EQ(pre_ln.optimizer.eps, 1e-8);
  EXPECT_EQ(pre_ln.batch_size, 50);
  EXPECT_EQ(pre_ln.run.keep_last, 0);
  const auto cpu_pre_ln = train::seq2seq_preset("cpu", Variant::kPreLN);  // no variant file: the same recipe
  EXPECT_EQ(cpu_pre_ln.schedule.kind, settings::ScheduleKind::kWarmupCosine);
  EXPECT_EQ(cpu_pre_ln.model.transformer().variant(), Variant::kPreLN);

  const auto vit = train::vit_preset("dlstudio");
  EXPECT_EQ(vit.data.dataset, "cifar10");
  EXPECT_EQ(vit.model.image_size(), 32);
  EXPECT_EQ(vit.model.patch_size(), 8);
  EXPECT_EQ(vit.model.num_encoders(), 8);
  EXPECT_EQ(vit.batch_size, 48);
  EXPECT_EQ(vit.epochs, 60);
  EXPECT_EQ(vit.lr, 1e-4);
  EXPECT_EQ(vit.optimizer.beta2, 0.99);
  EXPECT_EQ(train::vit_preset("fashion").model.image_size(), 28);
  EXPECT_EQ(train::lm_preset("cpu").model.transformer().layout(), Layout::kVaswani);
}

}  // namespace
}  // namespace builtin_presets_test
}  // namespace dls
