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

// --image-size and --channels are an image folder's; the datasets' images have their own.
TEST(ViTSettings, ImageSizeAndChannelsAreForAnImageFolderOnly) {
  ViTTrainSettings preset;
  auto asked = preset;
  asked.data.image_size = preset.data.image_size + 4;
  EXPECT_THROW(asked.check_image_flags(preset), std::runtime_error);
  asked = preset;
  asked.data.channels = preset.data.channels == 1 ? 3 : 1;
  EXPECT_THROW(asked.check_image_flags(preset), std::runtime_error);
  asked.data.dataset = "image-folder";
  asked.data.image_size = 48;
  EXPECT_NO_THROW(asked.check_image_flags(preset));
  EXPECT_NO_THROW(preset.check_image_flags(preset));
}

}  // namespace
}  // namespace dls::settings
