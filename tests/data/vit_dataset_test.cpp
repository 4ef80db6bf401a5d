// The images of a ViT run: the validation split held out of the training images is disjoint
// from what is trained on, covers every image, and is the same for the same seed.
#include "dls/data/vit_dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "support/idx_files.h"
#include "support/image_files.h"
#include "util/temp_files.h"

namespace dls::data {
namespace {

TEST(ViTDataset, ValidationSplitIsDisjointCompleteAndReproducible) {
  const auto split = split_training_images(1000, 0.1, 7);
  EXPECT_EQ(split.validation.size(), 100u);
  EXPECT_EQ(split.training.size(), 900u);
  EXPECT_TRUE(std::is_sorted(split.training.begin(), split.training.end()));
  EXPECT_TRUE(std::is_sorted(split.validation.begin(), split.validation.end()));
  std::vector<std::size_t> both;
  std::set_intersection(split.training.begin(), split.training.end(), split.validation.begin(), split.validation.end(),
                        std::back_inserter(both));
  EXPECT_TRUE(both.empty()) << "an image both trained on and validated";
  std::merge(split.training.begin(), split.training.end(), split.validation.begin(), split.validation.end(),
             std::back_inserter(both));
  for (std::size_t i = 0; i < both.size(); ++i) ASSERT_EQ(both[i], i) << "every image on one side";

  const auto again = split_training_images(1000, 0.1, 7);
  EXPECT_EQ(again.validation, split.validation) << "a resumed run holds out the same images";
  EXPECT_NE(split_training_images(1000, 0.1, 8).validation, split.validation);
  // Not the first images: the held-out ones are spread over the file.
  EXPECT_GT(split.validation.back() - split.validation.front(), 500u);
}

// The dataset's own normalisation of images whose channel never varies would divide by a
// zero deviation: refused, saying which normalisation to give instead.
TEST(ViTDataset, AChannelThatNeverVariesAsksForTheFixedNormalisation) {
  ImageSet flat;
  flat.channels = 1;
  flat.height = flat.width = 2;
  flat.pixels.assign(3 * 4, 0);
  flat.labels = {0, 1, 0};
  ViTDataSettings settings;
  settings.normalization = "dataset";
  try {
    resolve_vit_normalization(settings, flat);
    ADD_FAILURE() << "normalised";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--normalization dataset: channel 0 has the same value in every training image's every pixel; give "
                 "--normalization dlstudio");
  }
  settings.normalization = "dlstudio";
  EXPECT_NO_THROW(resolve_vit_normalization(settings, flat));
}

TEST(ViTDataset, ValidationSplitSizes) {
  EXPECT_TRUE(split_training_images(60000, 0.0, 1).validation.empty()) << "fraction 0: every image trained";
  EXPECT_EQ(split_training_images(60000, 0.0, 1).training.size(), 60000u);
  EXPECT_EQ(split_training_images(60000, 0.1, 1).validation.size(), 6000u);
  EXPECT_EQ(split_training_images(5, 0.01, 1).validation.size(), 1u) << "at least one";
  EXPECT_EQ(split_training_images(5, 0.9, 1).training.size(), 1u);
  EXPECT_EQ(split_training_images(2, 0.9, 1).training.size(), 1u) << "never every image";
  EXPECT_TRUE(split_training_images(1, 0.5, 1).validation.empty());
}

// A run's images: the held-out ones leave the training set, the test set stays whole.
TEST(ViTDataset, TrainingRunHoldsOutItsValidationImages) {
  const auto dir = test::fresh_temp_dir("vit_dataset_split");
  test::write_fake_fashion_mnist(dir, 40, 10);
  ViTDataSettings settings;
  settings.data_dir = dir.string();
  settings.validation_fraction = 0.25;
  const auto images = load_vit_training_dataset(settings, nullptr);
  EXPECT_EQ(images.train->size(), 30u);
  EXPECT_EQ(images.validation->size(), 10u);
  EXPECT_EQ(images.test->size(), 10u);
  settings.validation_fraction = 0;
  const auto all = load_vit_training_dataset(settings, nullptr);
  EXPECT_EQ(all.train->size(), 40u);
  EXPECT_EQ(all.validation->size(), 0u);
}

// --train-subset / --test-subset N of an image folder, whose listing runs class by class: N
// files drawn across the classes (the first N were all of the first class), the same ones
// again for the same seed.
TEST(ViTDataset, AnImageFoldersSubsetIsDrawnAcrossItsClasses) {
  const auto dir = test::red_and_blue_folder("vit_dataset_folder_subset", 20);
  ViTDataSettings settings;
  settings.dataset = "image-folder";
  settings.data_dir = dir.string();
  settings.channels = 3;
  settings.image_size = 4;
  settings.train_subset = 10;
  const auto subset = load_vit_images(settings, Split::kTrain, nullptr);
  ASSERT_EQ(subset.size(), 10u);
  const auto reds = std::count(subset.labels.begin(), subset.labels.end(), 1);
  EXPECT_GT(reds, 0) << "both classes";
  EXPECT_LT(reds, 10) << "both classes";
  EXPECT_EQ(load_vit_images(settings, Split::kTrain, nullptr).pixels, subset.pixels) << "the same draw";
  settings.train_subset = 100;
  EXPECT_EQ(load_vit_images(settings, Split::kTrain, nullptr).size(), 40u) << "more than there are: all";
}

}  // namespace
}  // namespace dls::data
