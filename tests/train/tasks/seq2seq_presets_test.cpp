// The preset seq2seq_train takes without --preset, by device: pinned on the CPU machine for
// the GPU's branch too ("cuda" is chosen by name, so no GPU is needed to check it).
#include "dls/train/tasks/seq2seq_presets.h"

#include <gtest/gtest.h>

namespace dls::train::seq2seq_presets_test {
namespace {

TEST(Seq2SeqPresets, TheDefaultFollowsTheDevice) {
  EXPECT_EQ(default_seq2seq_preset("cpu").name, "cpu");
  EXPECT_EQ(default_seq2seq_preset("cuda").name, "dlstudio");
  EXPECT_NE(default_seq2seq_preset("cuda").reason.find("GPU"), std::string::npos);
  EXPECT_NE(default_seq2seq_preset("cpu").reason.find("CPU"), std::string::npos);
}

}  // namespace
}  // namespace dls::train::seq2seq_presets_test
