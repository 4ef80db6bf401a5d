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
// A dataset's images have their own size and channels: --image-size and --channels typed
// with others are refused; a config file's (an image folder run's) give way, and the
// start-up line and config.toml show the dataset's own.
TEST(ViTSettings, ImageSizeAndChannelsAreForAnImageFolderOnly) {
  ViTTrainSettings asked;
  asked.data.dataset = "fashion-mnist";
  asked.data.image_size = 16;
  EXPECT_THROW(asked.check_image_flags(/*size_typed=*/true, false), std::runtime_error);
  EXPECT_NO_THROW(asked.check_image_flags(/*size_typed=*/false, false)) << "a config file's";
  asked.adapt_model_to_dataset();
  EXPECT_EQ(asked.data.image_size, 16) << "shown as the dataset's when asked";
  asked.show_dataset_images();
  EXPECT_EQ(asked.data.image_size, 28);
  EXPECT_EQ(asked.data.channels, 1);
  EXPECT_EQ(asked.model.image_size(), 28);
  EXPECT_NO_THROW(asked.check_image_flags(true, true)) << "the dataset's own, typed";
  asked.data.dataset = "cifar10";
  asked.data.channels = 1;
  try {
    asked.check_image_flags(false, /*channels_typed=*/true);
    ADD_FAILURE() << "--channels 1 for CIFAR-10 accepted";
  } catch (const std::runtime_error& refused) {
    EXPECT_STREQ(refused.what(), "--channels: only for an image folder (cifar10's images are 32x32x3)");
  }
  asked.data.dataset = "image-folder";
  asked.data.image_size = 48;
  EXPECT_NO_THROW(asked.check_image_flags(true, true));
}

}  // namespace
}  // namespace dls::settings
