#include "dls/data/image_folder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include "dls/util/file_io.h"
#include "dls/util/image_file.h"
#include "dls/util/parallel_chunks.h"
#include "dls/util/progress.h"

namespace dls::data {

namespace fs = std::filesystem;

namespace {

bool is_image_name(const fs::path& path) {
  auto ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

// The folders, or everything else (files, dangling links, FIFOs), of `dir` but hidden ones.
std::vector<fs::path> sorted_entries(const fs::path& dir, bool folders) {
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden files and folders
    if (entry.is_directory() == folders) entries.push_back(entry.path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

// A folder a training run writes (its lock, its checkpoints), which holds no class's images.
bool is_training_run(const fs::path& dir) {
  std::error_code error;
  return fs::exists(dir / ".lock", error) || fs::is_directory(dir / "checkpoints", error) ||
         fs::exists(dir / "metrics.csv", error);
}

// A folder whose sub-folders are training runs (DIR/runs/a), holding no images itself.
bool holds_training_runs(const fs::path& dir) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_directory(error) && is_training_run(entry.path())) return true;
  }
  return false;
}

// The files under a class folder, in its sub-folders too (as torchvision's ImageFolder reads
// them), but hidden ones and training runs' folders; sorted by path. A link to a folder is not
// followed (a loop would never end).
std::vector<fs::path> class_files(const fs::path& class_dir) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(class_dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto name = it->path().filename().string();
    const bool folder = it->is_directory();
    if (name.empty() || name[0] == '.' || (folder && is_training_run(it->path()))) {
      if (folder) it.disable_recursion_pending();
      continue;
    }
    if (!folder) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The images of every class folder under `root` (classes: `names`, or all sub-folders when
// `names` is empty, which it then fills).
std::vector<ImageFolderFile> list_classes(const fs::path& root, const std::string& prefix,
                                          std::vector<std::string>& names, ImageFolderListing& listing) {
  const bool learn_names = names.empty();
  std::vector<ImageFolderFile> files;
  for (const auto& class_dir : sorted_entries(root, true)) {
    const auto name = class_dir.filename().string();
    std::vector<fs::path> images, others;
    for (const auto& file : class_files(class_dir)) {
      std::error_code error;
      const bool image = is_image_name(file) && fs::is_regular_file(file, error);  // not a GIF, a dangling link, a FIFO
      (image ? images : others).push_back(file);
    }
    if (is_training_run(class_dir) || (images.empty() && holds_training_runs(class_dir))) {
      // vit_train --image-folder DIR --run-dir DIR/run (or DIR/runs/a): the run is no class,
      // though its plots are PNGs.
      spdlog::info("{}: a training run's folder, not a class of images: skipped", class_dir.string());
      continue;
    }
    if (images.empty())
      throw std::runtime_error(class_dir.string() + ": no .png, .jpg or .jpeg images (an empty class)");
    auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) {
      if (!learn_names) {
        throw std::runtime_error(class_dir.string() + ": a test class the training images do not have (" +
                                 std::to_string(names.size()) + " classes there)");
      }
      names.push_back(name);
      found = names.end() - 1;
    }
    if (names.size() > 256) throw std::runtime_error(root.string() + ": more than 256 class folders");
    const auto label = static_cast<std::uint8_t>(found - names.begin());
    for (const auto& file : others) {
      if (listing.skipped++ == 0) listing.first_skipped = file.string();
    }
    for (const auto& file : images) {
      files.push_back({prefix + name + "/" + file.lexically_relative(class_dir).generic_string(), label});
    }
  }
  return files;
}

}  // namespace

std::string ImageFolderListing::manifest() const {
  std::string text;
  for (const auto* files : {&train, &test}) {
    for (const auto& f : *files) {
      text += (files == &train ? "train\t" : "test\t") + std::to_string(f.label) + "\t" + f.path + "\n";
    }
  }
  return text;
}

namespace {

void check_image_folder(const std::string& dir) {
  std::error_code error;
  if (dir.empty())
    throw std::runtime_error("no image folder given: --image-folder DIR (or --dataset image-folder --data-dir DIR)");
  if (!fs::is_directory(dir, error)) throw std::runtime_error(dir + ": not a folder (the image folder)");
}

}  // namespace

ImageFolderListing list_evaluation_folder(const std::string& dir, const std::vector<std::string>& class_names) {
  check_image_folder(dir);
  ImageFolderListing listing;
  listing.dir = dir;
  listing.class_names = class_names;
  const fs::path root(dir);
  std::error_code error;
  const bool test = fs::is_directory(root / "test", error);
  if (test || !fs::is_directory(root / "train", error)) {
    listing.test = list_classes(test ? root / "test" : root, test ? "test/" : "", listing.class_names, listing);
  }
  return listing;
}

ImageFolderListing list_image_folder(const std::string& dir) {
  std::error_code error;
  check_image_folder(dir);
  ImageFolderListing listing;
  listing.dir = dir;
  const fs::path root(dir);
  const bool split = fs::is_directory(root / "train", error);
  listing.train = list_classes(split ? root / "train" : root, split ? "train/" : "", listing.class_names, listing);
  if (listing.class_names.size() < 2) {
    throw std::runtime_error((split ? root / "train" : root).string() + ": " +
                             std::to_string(listing.class_names.size()) +
                             " class folders; a classifier needs at least two (DIR/CLASS/image.png ...)");
  }
  if (split && fs::is_directory(root / "test", error)) {
    listing.test = list_classes(root / "test", "test/", listing.class_names, listing);
  }
  if (split) {  // DIR/val/ beside train/ and test/ is read by nothing: said, not dropped silently
    for (const auto& other : sorted_entries(root, true)) {
      const auto name = other.filename().string();
      if (name != "train" && name != "test" && !is_training_run(other) && !holds_training_runs(other)) {
        spdlog::warn(
            "{}: not read (an image folder with train/ reads train/ and test/; validation images are held "
            "out of train/, --validation-fraction)",
            other.string());
      }
    }
  }
  return listing;
}

void check_run_dir_beside_images(const std::string& image_dir, const std::string& run_dir) {
  std::error_code error;
  const auto images = fs::weakly_canonical(image_dir, error), run = fs::weakly_canonical(run_dir, error);
  if (images.empty() || run.empty()) return;
  const auto inside = run.lexically_relative(images);
  if (inside.empty() || *inside.begin() == "..") return;  // elsewhere
  const std::vector<fs::path> parts(inside.begin(), inside.end());
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error("--run-dir " + run_dir + ": " + why +
                             ", where the run's plots and checkpoints would mix with the images: put the run "
                             "elsewhere (or in a folder of its own inside " +
                             image_dir + ")");
  };
  if (inside == ".") refuse("the image folder itself");
  const bool split = fs::is_directory(images / "train", error);
  const bool in_split = split && (parts[0] == "train" || parts[0] == "test");
  if (split && !in_split) return;  // beside train/ and test/: not read
  if (in_split && parts.size() == 1) refuse("the image folder's " + parts[0].string() + "/ folder");
  const std::size_t class_level = in_split ? 1 : 0;  // parts[class_level]: the class folder
  const auto class_dir = images / (in_split ? parts[0] / parts[1] : parts[0]);
  if (!fs::is_directory(class_dir, error) || is_training_run(class_dir) || holds_training_runs(class_dir)) return;
  const auto files = class_files(class_dir);
  if (std::any_of(files.begin(), files.end(), [](const fs::path& file) { return is_image_name(file); })) {
    refuse(parts.size() == class_level + 1 ? "a class folder of the images"
                                           : "inside the class folder " + class_dir.string());
  }
}

namespace {

// How far the decoding of a folder is, from any decoding thread: nothing for a quick one, a
// progress line (util::ProgressBar) once it has taken kQuietSeconds.
class DecodingProgress {
 public:
  DecodingProgress(std::size_t total, std::string label) : total_(total), label_(std::move(label)) {}

  void one_more() {
    const auto done = ++done_;
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;  // another thread is drawing: the next file will
    if (!bar_ && std::chrono::steady_clock::now() - start_ < std::chrono::seconds(kQuietSeconds)) return;
    if (!bar_) {
      util::ProgressOptions options;
      options.unit = "images";
      options.log_every_s = 10;
      bar_.emplace(static_cast<std::int64_t>(total_), "decoding " + label_, options);
    }
    bar_->update(static_cast<std::int64_t>(done));
  }

  void finish() {
    if (bar_) bar_->finish();
  }

 private:
  static constexpr int kQuietSeconds = 3;
  std::size_t total_;
  std::string label_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::optional<util::ProgressBar> bar_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// One file as a model takes it: decoded no larger than needed, resized, planar (as
// eval::model_pixels prepares an image to classify).
std::vector<std::uint8_t> model_input(const std::string& path, int channels, int size) {
  util::ImageDecoding decoding;
  decoding.min_side = size;
  return util::planar_pixels(util::decode_image(util::read_file(path), decoding), channels, size);
}

}  // namespace

ImageSet read_image_folder(const ImageFolderListing& listing, Split split, int channels, int size) {
  const auto& files = split == Split::kTrain ? listing.train : listing.test;
  ImageSet set;
  set.channels = channels;
  set.height = set.width = size;
  set.class_names = listing.class_names;
  set.display_names = listing.class_names;  // whole: cut short, two names could become one
  set.pixels.resize(files.size() * set.image_bytes());
  // Decoded on as many threads as the program's intra-op threads (--threads: a large image
  // takes hundreds of MB while it decodes), each file into its own slot; a file that does not
  // decode is reported after all are tried, the first in the listing's order, whichever
  // thread found it. A progress line once decoding has taken a few seconds.
  std::vector<std::string> errors(files.size());
  DecodingProgress progress(files.size(), split == Split::kTrain ? "training images" : "test images");
  util::for_each_chunk(static_cast<std::int64_t>(files.size()), std::max(1, at::get_num_threads()),
                       [&](int, std::int64_t begin, std::int64_t end) {
                         for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
                           const auto path = (fs::path(listing.dir) / files[i].path).string();
                           try {
                             const auto pixels = model_input(path, channels, size);
                             std::copy(pixels.begin(), pixels.end(),
                                       set.pixels.begin() + static_cast<std::ptrdiff_t>(i * pixels.size()));
                           } catch (const std::exception& e) {
                             errors[i] = path + ": " + e.what();
                           }
                           progress.one_more();
                         }
                       });
  progress.finish();
  for (const auto& error : errors) {
    if (!error.empty()) throw std::runtime_error(error);
  }
  for (const auto& file : files) set.labels.push_back(file.label);
  return set;
}

}  // namespace dls::data
