// The preset seq2seq_train takes without --preset, by device: pinned on the CPU machine for
// the GPU's branch too ("cuda" is chosen by name, so no GPU is needed to check it).
#include "dls/train/tasks/seq2seq_presets.h"

#include <gtest/gtest.h>

#include <string>

namespace dls::train::seq2seq_presets_test {
namespace {

TEST(Seq2SeqPresets, TheDefaultFollowsTheDevice) {
  EXPECT_EQ(default_seq2seq_preset("cpu").name, "cpu");
  EXPECT_EQ(default_seq2seq_preset("cuda").name, "dlstudio");
  EXPECT_NE(default_seq2seq_preset("cuda").reason.find("GPU"), std::string::npos);
  EXPECT_NE(default_seq2seq_preset("cpu").reason.find("CPU"), std::string::npos);
}

// A new run without --preset gets the device's preset, which its name and note then say (the
// name goes into config.toml); a named preset is kept and noted as asked.
TEST(Seq2SeqPresets, ANewRunTakesTheDevicesPresetUnlessOneIsNamed) {
  std::string name;
  const auto gpu = new_run_preset(name, Variant::kFG, "cuda");
  EXPECT_EQ(name, "dlstudio");
  EXPECT_EQ(gpu.preset_note.rfind("preset dlstudio: the default on a GPU", 0), 0u) << gpu.preset_note;
  EXPECT_EQ(gpu.model.transformer().layout(), Layout::kDLStudio);  // DLStudio's model, not the cpu preset's
  name = "cpu";
  const auto named = new_run_preset(name, Variant::kFG, "cuda");
  EXPECT_EQ(name, "cpu");
  EXPECT_EQ(named.preset_note, "preset cpu (--preset)");
  EXPECT_EQ(named.model.transformer().layout(), Layout::kVaswani);
}

}  // namespace
}  // namespace dls::train::seq2seq_presets_test
