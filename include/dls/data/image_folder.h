// A folder of one's own images, one sub-folder per class (torchvision's ImageFolder layout):
//
//   DIR/CLASS/*.png|*.jpg|*.jpeg               every image is a training image (validation:
//                                              held out of them, vit_dataset.h)
//   DIR/train/CLASS/...  and  DIR/test/CLASS/...   with a test set of its own
//
// Classes are the sub-folders' names in byte order; a class's files are read in path order,
// its sub-folders' too (CLASS/2019/a.png), as ImageFolder reads them; other files are counted
// and left out, hidden ones and training runs' folders are skipped, and a folder beside
// train/ and test/ (val/) is named in a warning. Images of any size are resized to the
// model's (stretched: util/image_file.h), grey models taking the luminance.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dls/data/image_dataset.h"

namespace dls::data {

struct ImageFolderFile {
  std::string path;  // relative to the folder: "cat/001.jpg", "train/cat/001.jpg"
  std::uint8_t label = 0;
};

struct ImageFolderListing {
  std::string dir;
  std::vector<std::string> class_names;
  std::vector<ImageFolderFile> train, test;  // test: empty without DIR/test
  std::size_t skipped = 0;                   // files left out: not .png/.jpg/.jpeg, or no regular file
  std::string first_skipped;                 // the first of them (its path)

  // One line per file, "train<TAB>LABEL<TAB>PATH": what a checkpoint records, so that a
  // resumed run or an evaluation can tell that the folder still holds the same images.
  std::string manifest() const;
};

// Lists `dir`. Throws std::runtime_error with one line naming the folder at fault: not a
// folder, fewer than two classes, a class without images ("DIR/cat: no .png, .jpg or .jpeg
// images (an empty class)"), a test class the training images do not have, more than 256 classes.
ImageFolderListing list_image_folder(const std::string& dir);

// A folder to evaluate a trained model on: DIR/test/CLASS/... (a training layout's test set;
// none without DIR/test/) or DIR/CLASS/..., each class one of `class_names` (the model's, in
// its output order: the labels; empty: learnt from the folder). Its images are the listing's
// test images. Throws as list_image_folder does, naming a class the model does not have.
ImageFolderListing list_evaluation_folder(const std::string& dir, const std::vector<std::string>& class_names);

// Throws std::runtime_error when a training run in `run_dir` would mix its files (plots are
// PNGs) with the images of `image_dir`: the folder itself, its train/ or test/, a class
// folder holding images or a folder inside one. A folder of its own in the image folder
// (DIR/run, DIR/runs/a) is fine: the listing skips it.
void check_run_dir_beside_images(const std::string& image_dir, const std::string& run_dir);

// The images of `split` decoded, resized to size x size and converted to `channels` (1: the
// luminance 0.299 R + 0.587 G + 0.114 B; 3: RGB). Throws std::runtime_error "FILE: what is
// wrong" for a file that does not decode.
ImageSet read_image_folder(const ImageFolderListing& listing, Split split, int channels, int size);

}  // namespace dls::data
