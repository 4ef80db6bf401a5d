#include "dls/data/image_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/image_files.h"
#include "util/temp_files.h"

namespace dls::data::image_folder_test {
namespace {

namespace fs = std::filesystem;

void expect_listing_error(const fs::path& dir, const std::string& part) {
  try {
    list_image_folder(dir.string());
    ADD_FAILURE() << "no error; expected '" << part << "'";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ImageFolder, ClassesAreSubFoldersAndImagesAreResized) {
  const auto dir = test::red_and_blue_folder("image_folder_classes", 6);
  test::write_bytes(dir / "red" / "notes.txt", "not an image");
  test::write_bytes(dir / "red" / ".hidden.png", "ignored");
  fs::create_symlink(dir / "red" / "gone.png", dir / "blue" / "dangling.png");  // no file behind it
  const auto listing = list_image_folder(dir.string());
  ASSERT_EQ(listing.class_names, (std::vector<std::string>{"blue", "red"}));
  ASSERT_EQ(listing.train.size(), 12u);
  EXPECT_TRUE(listing.test.empty());
  EXPECT_EQ(listing.skipped, 2u) << "notes.txt and the dangling link: counted, hidden files not";
  EXPECT_EQ(listing.first_skipped, (dir / "blue" / "dangling.png").string());
  EXPECT_EQ(listing.train.front().path, "blue/100.jpg");  // classes, then names, in byte order
  EXPECT_EQ(listing.train.front().label, 0);
  EXPECT_EQ(listing.train.back().path, "red/105.jpg");
  EXPECT_EQ(listing.manifest().substr(0, 19), "train\t0\tblue/100.jp");

  const auto colour = read_image_folder(listing, Split::kTrain, 3, 16);
  ASSERT_EQ(colour.size(), 12u);
  EXPECT_EQ(colour.channels, 3);
  EXPECT_EQ(colour.height, 16);
  EXPECT_EQ(colour.class_names, listing.class_names);
  // The last image is red: its red plane's far corner is bright, its blue plane dark.
  const auto* red = colour.image(11);
  EXPECT_GT(red[0 * 256 + 255], 150);
  EXPECT_LT(red[2 * 256 + 255], 80);
  EXPECT_EQ(colour.labels[11], 1);
  const auto grey = read_image_folder(listing, Split::kTrain, 1, 8);
  EXPECT_EQ(grey.channels, 1);
  EXPECT_EQ(grey.pixels.size(), 12u * 64u);
}

TEST(ImageFolder, TrainAndTestFoldersGiveATestSet) {
  const auto dir = test::fresh_temp_dir("image_folder_split");
  const auto png = test::png_of(test::solid_image(10, 10, 1, 2, 3));
  test::write_image_files(dir, {{"train/a/1.png", png}, {"train/b/1.png", png}, {"test/b/9.png", png}});
  const auto listing = list_image_folder(dir.string());
  EXPECT_EQ(listing.train.size(), 2u);
  ASSERT_EQ(listing.test.size(), 1u);
  EXPECT_EQ(listing.test[0].path, "test/b/9.png");
  EXPECT_EQ(listing.test[0].label, 1);
  EXPECT_EQ(read_image_folder(listing, Split::kTest, 3, 4).size(), 1u);
}

// vit_train --image-folder DIR --run-dir DIR/run: the run's folder (its lock, checkpoints or
// metrics.csv, no images) is no class, before training and when a report reads DIR again.
TEST(ImageFolder, ARunDirectoryInsideIsNoClass) {
  const auto dir = test::red_and_blue_folder("image_folder_run_inside", 2);
  fs::create_directories(dir / "run");
  test::write_bytes(dir / "run" / ".lock", "123\n");
  fs::create_directories(dir / "run2" / "checkpoints");
  // A finished run holds PNGs (its plots); a folder of runs holds runs, not images.
  test::write_image_files(dir, {{"run3/metrics.csv", "epoch\n"},
                                {"run3/loss.png", test::png_of(test::solid_image(4, 4, 1, 2, 3))},
                                {"runs/a/metrics.csv", "epoch\n"}});
  EXPECT_EQ(list_image_folder(dir.string()).class_names, (std::vector<std::string>{"blue", "red"}));
  test::write_image_files(dir, {{"notes/readme.txt", "x"}});
  expect_listing_error(dir, (dir / "notes").string() + ": no .png, .jpg or .jpeg images (an empty class)");
}

// As torchvision's ImageFolder: a class's images in its sub-folders count (they were left out
// silently); hidden folders and a run's folder inside a class do not. Class names stay whole
// for the tables (cut to 7 bytes, "category_a" and "category_b" were one name).
TEST(ImageFolder, AClassesSubFoldersHoldItsImagesToo) {
  const auto png = test::png_of(test::solid_image(6, 6, 1, 2, 3));
  const auto dir = test::fresh_temp_dir("image_folder_nested");
  test::write_image_files(dir, {{"category_a/1.png", png},
                                {"category_a/2019/2.png", png},
                                {"category_a/2019/deeper/3.png", png},
                                {"category_a/.cache/4.png", png},
                                {"category_a/run/metrics.csv", "epoch\n"},
                                {"category_a/run/loss.png", png},
                                {"category_b/1.png", png}});
  const auto listing = list_image_folder(dir.string());
  ASSERT_EQ(listing.class_names, (std::vector<std::string>{"category_a", "category_b"}));
  std::vector<std::string> paths;
  for (const auto& file : listing.train) paths.push_back(file.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"category_a/1.png", "category_a/2019/2.png",
                                             "category_a/2019/deeper/3.png", "category_b/1.png"}));
  EXPECT_EQ(read_image_folder(listing, Split::kTrain, 1, 4).display_names, listing.class_names);
}

// A run directory that would put its plots among the images is refused before it is made;
// a folder of its own in the image folder is not (the listing skips it).
TEST(ImageFolder, ARunDirectoryAmongTheImagesIsRefused) {
  const auto flat = test::red_and_blue_folder("image_folder_run_dir_flat", 2);
  const auto png = test::png_of(test::solid_image(6, 6, 1, 2, 3));
  const auto split = test::fresh_temp_dir("image_folder_run_dir_split");
  test::write_image_files(split, {{"train/a/1.png", png}, {"train/b/1.png", png}, {"test/a/1.png", png}});
  for (const auto& [images, run, why] : std::vector<std::tuple<fs::path, fs::path, std::string>>{
           {flat, flat, "the image folder itself"},
           {flat, flat / ".", "the image folder itself"},
           {flat, flat / "red", "a class folder of the images"},
           {flat, flat / "red" / "run", "inside the class folder"},
           {split, split / "train", "the image folder's train/ folder"},
           {split, split / "test" / "a" / "run", "inside the class folder"}}) {
    try {
      check_run_dir_beside_images(images.string(), run.string());
      ADD_FAILURE() << run << ": accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  for (const auto& [images, run] : std::vector<std::pair<fs::path, fs::path>>{{flat, flat / "run"},
                                                                              {flat, flat / "runs" / "a"},
                                                                              {flat, flat.parent_path() / "elsewhere"},
                                                                              {split, split / "runs" / "a"},
                                                                              {split, split / "test" / "new"}}) {
    EXPECT_NO_THROW(check_run_dir_beside_images(images.string(), run.string())) << run;
  }
}

// checkpoint_eval report RUN --data-dir DIR: a test set alone (DIR/test/CLASS) or a flat
// folder of some of the model's classes, labelled by the model's names and order; it wanted
// DIR/train/ with two classes and read DIR/test as a class.
TEST(ImageFolder, AnEvaluationFolderIsLabelledByTheModelsClasses) {
  const auto png = test::png_of(test::solid_image(6, 6, 1, 2, 3));
  const std::vector<std::string> model{"cat", "dog", "owl"};
  const auto test_only = test::fresh_temp_dir("image_folder_eval_test_only");
  test::write_image_files(test_only, {{"test/dog/1.png", png}, {"test/dog/2.png", png}});
  const auto listing = list_evaluation_folder(test_only.string(), model);
  ASSERT_EQ(listing.test.size(), 2u);
  EXPECT_EQ(listing.test[0].path, "test/dog/1.png");
  EXPECT_EQ(listing.test[0].label, 1) << "the model's label of dog";
  EXPECT_EQ(listing.class_names, model);
  const auto flat = test::fresh_temp_dir("image_folder_eval_flat");
  test::write_image_files(flat, {{"owl/1.png", png}});
  EXPECT_EQ(list_evaluation_folder(flat.string(), model).test.at(0).label, 2);
  test::write_image_files(flat, {{"cow/1.png", png}});
  try {
    list_evaluation_folder(flat.string(), model);
    ADD_FAILURE() << "a class the model does not have";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cow: a test class the training images do not have"), std::string::npos)
        << e.what();
  }
  const auto train_only = test::fresh_temp_dir("image_folder_eval_train_only");
  test::write_image_files(train_only, {{"train/dog/1.png", png}});
  EXPECT_TRUE(list_evaluation_folder(train_only.string(), model).test.empty()) << "a training layout without test/";
}

TEST(ImageFolder, BadFoldersAreOneLineNamingTheFolder) {
  const auto png = test::png_of(test::solid_image(10, 10, 1, 2, 3));
  expect_listing_error("/nonexistent/images", "/nonexistent/images: not a folder");
  expect_listing_error("", "no image folder given: --image-folder DIR");
  const auto one = test::fresh_temp_dir("image_folder_one_class");
  test::write_image_files(one, {{"cat/1.png", png}});
  expect_listing_error(one, "1 class folders; a classifier needs at least two");
  const auto empty = test::fresh_temp_dir("image_folder_empty_class");
  test::write_image_files(empty, {{"cat/1.png", png}, {"dog/readme.txt", "x"}});
  expect_listing_error(empty, (empty / "dog").string() + ": no .png, .jpg or .jpeg images (an empty class)");
  const auto stranger = test::fresh_temp_dir("image_folder_test_class");
  test::write_image_files(stranger, {{"train/cat/1.png", png}, {"train/dog/1.png", png}, {"test/cow/1.png", png}});
  expect_listing_error(stranger, "cow: a test class the training images do not have");
  // A damaged JPEG is named when the images are read: the first in the listing's order,
  // though the files are decoded on several threads and another chunk holds one too.
  const auto damaged = test::fresh_temp_dir("image_folder_damaged");
  const auto jpeg = test::jpeg_of(test::solid_image(16, 16, 9, 9, 9));
  const auto half = jpeg.substr(0, jpeg.size() / 2);
  test::write_image_files(damaged, {{"cat/1.png", png},
                                    {"cat/2.png", png},
                                    {"dog/2.jpg", half},
                                    {"dog/3.jpg", jpeg},
                                    {"dog/4.jpg", jpeg},
                                    {"dog/5.jpg", half}});
  try {
    read_image_folder(list_image_folder(damaged.string()), Split::kTrain, 3, 8);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((damaged / "dog" / "2.jpg").string() + ": a damaged JPEG image", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace dls::data::image_folder_test
