// ViT run settings as checkpoints record them: the validation split (fraction and seed)
// travels with the run, so that a resume holds out the same images; a checkpoint written
// before the split trained on every training image and reads back so.
#include "dls/settings/vit_settings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/key_names.h"

namespace dls::settings {
namespace {

// The model's keys under "model." -- the ones checkpoints have always had, the encoder's
// sequence length P + 1 among them -- and back; a checkpoint without the stem (older) has
// none, and those of 2026-11-22/23 gave it as stem_channels and stem_layers.
TEST(ViTSettings, TheModelsKeysRoundTripAndOlderStemsRead) {
  ViTTrainSettings s;
  s.model.transformer()
      .variant(Variant::kPreLN)
      .layout(Layout::kVaswani)
      .embedding_size(16)
      .num_heads(4)
      .dropout(0.125);
  s.model.image_size(28).channels(1).patch_size(4).num_encoders(2).num_classes(10).head_hidden_size(32);
  s.model.conv_patch_embedding(true).head_dropout(0.25).stem(StemSpec(2, StemConv{5, 1}));
  const auto all = s.to_settings();
  const auto keys = all.section("model");
  EXPECT_EQ(test::sorted_keys(keys),
            (std::vector<std::string>{"channels", "conv_patch_embedding", "head_dropout", "head_hidden_size",
                                      "image_size", "num_classes", "num_encoders", "patch_size", "pixel_attention",
                                      "stem", "transformer.dropout", "transformer.embedding_size",
                                      "transformer.ffn_multiplier", "transformer.layout", "transformer.max_seq_length",
                                      "transformer.num_heads", "transformer.variant"}));
  EXPECT_EQ(keys.get_int("transformer.max_seq_length"), 50);  // 7 x 7 patches and the class token
  const auto back = ViTTrainSettings::from_settings(util::KeyValues::from_text(all.to_text(), "test"));
  EXPECT_EQ(back.to_settings().to_text(), all.to_text());
  EXPECT_EQ(back.model.summary(), s.model.summary());
  EXPECT_EQ(back.model.stem(), s.model.stem());
  EXPECT_EQ(back.model.transformer().max_seq_length(), 50);
  util::KeyValues old;
  for (const auto& [key, value] : all.entries()) {
    if (key != "model.stem") old.set(key, value);
  }
  EXPECT_TRUE(ViTTrainSettings::from_settings(old).model.stem().empty());
  old.set("model.stem_channels", "5");
  old.set("model.stem_layers", "2");
  EXPECT_EQ(ViTTrainSettings::from_settings(old).model.stem(), s.model.stem());
  old.set("model.stem_channels", "0");
  EXPECT_TRUE(ViTTrainSettings::from_settings(old).model.stem().empty());
}

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
