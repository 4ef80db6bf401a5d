// ViT run settings as checkpoints record them: the validation split (fraction and seed)
// travels with the run, so that a resume holds out the same images; a checkpoint written
// before the split trained on every training image and reads back so.
#include "dls/settings/vit_settings.h"

#include <gtest/gtest.h>

namespace dls::settings {
namespace {

TEST(ViTSettings, ValidationSplitRoundTrips) {
  ViTTrainSettings s;
  EXPECT_DOUBLE_EQ(s.data.validation_fraction, 0.1);
  s.data.validation_fraction = 0.2;
  s.data.split_seed = 18446744073709551615ULL;
  const auto back = ViTTrainSettings::from_settings(s.to_settings());
  EXPECT_DOUBLE_EQ(back.data.validation_fraction, 0.2);
  EXPECT_EQ(back.data.split_seed, 18446744073709551615ULL);
}

TEST(ViTSettings, AnOlderCheckpointHasNoValidationSplit) {
  const auto saved = ViTTrainSettings{}.to_settings();
  util::KeyValues older;
  for (const auto& [key, value] : saved.entries()) {
    if (key != "data.validation_fraction" && key != "data.split_seed") older.set(key, value);
  }
  const auto back = ViTTrainSettings::from_settings(older);
  EXPECT_EQ(back.data.validation_fraction, 0.0);
  EXPECT_EQ(back.data.split_seed, ViTTrainSettings{}.data.split_seed);
}

}  // namespace
}  // namespace dls::settings
