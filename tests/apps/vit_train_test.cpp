// vit_train end to end: help, bad data and bad checkpoints as one-line errors, a tiny run.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"
#include "support/idx_files.h"
#include "support/image_files.h"
#include "support/program_run.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

test::ProgramRun run_vit_train(const std::string& args, const std::string& name) {
  return test::run_program("apps/vit_train", "--threads 1 " + args, "vit_train_app_" + name);
}

// Fashion-MNIST files in a temporary folder, the training images replaced by `images`
// and the labels by `labels` (when not empty).
fs::path data_with(const std::string& name, const std::string& images, const std::string& labels) {
  const auto dir = test::fresh_temp_dir("vit_train_app_" + name);
  test::write_fake_fashion_mnist(dir, 20, 10);
  if (!images.empty()) test::write_bytes(dir / "train-images-idx3-ubyte", images);
  if (!labels.empty()) test::write_bytes(dir / "train-labels-idx1-ubyte", labels);
  return dir;
}

// Command-line errors exit with CLI11's own status, other errors with 1.
void expect_vit_train_error(const test::ProgramRun& run, const std::string& part) {
  test::expect_one_line_error(run, part, test::kAnyFailure);
}

TEST(VitTrainApp, HelpGroupsEveryFlag) {
  const auto run = run_vit_train("--help", "help");
  EXPECT_EQ(run.status, 0);
  for (const char* group : {"Data:", "Model:", "Training:", "Output:"}) {
    EXPECT_NE(run.out.find(group), std::string::npos) << group << "\n" << run.out;
  }
  for (const char* flag :
       {"--dataset",    "--data-dir", "--preset",           "--run-dir",     "--epochs",     "--max-iters",
        "--time-limit", "--resume",   "--checkpoint-every", "--keep-last",   "--json",       "--threads",
        "--device",     "--seed",     "--train-subset",     "--test-subset", "--patch-size", "--layout",
        "--variant",    "--lr",       "--label-smoothing",  "--flip"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag;
  }
}

TEST(VitTrainApp, BadDataIsAOneLineError) {
  const std::string args = " --run-dir " + test::fresh_temp_dir("vit_train_app_bad_run").string() + " --data-dir ";
  expect_vit_train_error(
      run_vit_train(args + data_with("magic", test::idx_images(20, 28, 28, 0x00000801), "").string(), "magic"),
      "train-images-idx3-ubyte");
  const auto images = test::idx_images(20, 28, 28);
  expect_vit_train_error(
      run_vit_train(args + data_with("trunc", images.substr(0, images.size() - 5), "").string(), "trunc"), "truncated");
  expect_vit_train_error(
      run_vit_train(args + data_with("label", "", test::idx_labels(std::vector<int>(20, 12))).string(), "label"),
      "train-labels-idx1-ubyte");
  // 32 x 32 images where the model expects 28 x 28.
  expect_vit_train_error(run_vit_train(args + data_with("size", test::idx_images(20, 32, 32), "").string(), "size"),
                         "28");
  expect_vit_train_error(run_vit_train(args + "/nonexistent/folder", "missing"), "/nonexistent/folder");
  // Test images of another size than the training images: refused, not evaluated.
  const auto test_size = data_with("test_size", "", "");
  test::write_bytes(test_size / "t10k-images-idx3-ubyte", test::idx_images(10, 32, 32));
  expect_vit_train_error(run_vit_train(args + test_size.string(), "test_size"),
                         "the test images (fashion-mnist) are 32x32x1 images in 10 classes; the model expects 28x28x1");
  // An image folder's flags on a dataset with images of its own would be ignored: refused.
  const auto fashion = data_with("folder_flags", "", "");
  expect_vit_train_error(run_vit_train(args + fashion.string() + " --image-size 16", "image_size"),
                         "--image-size: only for an image folder");
  expect_vit_train_error(run_vit_train(args + fashion.string() + " --channels 3", "channels"),
                         "--channels: only for an image folder (fashion-mnist's images are 28x28x1)");
  // An unset variable's empty --image-folder trained Fashion-MNIST; a run directory that is the
  // image folder put its plots among the images (and the next start read them as a class).
  expect_vit_train_error(run_vit_train("--image-folder \"\" --dry-run", "empty_folder"),
                         "--image-folder: an empty path");
  const auto folder = test::red_and_blue_folder("vit_train_app_run_in_images", 2).string();
  expect_vit_train_error(run_vit_train("--image-folder " + folder + " --run-dir " + folder + " --dry-run", "same_dir"),
                         "--run-dir " + folder + ": the image folder itself");
  expect_vit_train_error(run_vit_train("--image-folder " + folder + " --dataset cifar10 --dry-run", "both"),
                         "--image-folder excludes --dataset");
}

TEST(VitTrainApp, CorruptCheckpointIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("vit_train_app_corrupt");
  fs::create_directories(dir / "checkpoints");
  const auto file = dir / "checkpoints" / "checkpoint_epoch_0001.pt";
  test::write_bytes(file, "garbage");
  expect_vit_train_error(run_vit_train("--resume " + dir.string(), "corrupt"), file.string());
}

// A malformed --stem, or one whose output the patch size does not divide, is one line.
TEST(VitTrainApp, BadStemIsOneLineError) {
  const auto data = data_with("stem", "", "");
  const auto args =
      "--data-dir " + data.string() + " --run-dir " + test::fresh_temp_dir("vit_train_app_stem_run").string();
  expect_vit_train_error(run_vit_train(args + " --stem 32,", "stem_comma"), "stem '32,' ends with a comma");
  expect_vit_train_error(run_vit_train(args + " --stem 32/x", "stem_stride"), "stem layer '32/x'");
  expect_vit_train_error(run_vit_train(args + " --stem 8,8/2 --patch-size 4", "stem_patch"),
                         "stem output size 14 is not divisible by the patch size 4");
}

// The flags of a tiny model (M 16, 2 heads, 1 encoder, a two-layer stem to 14 x 14, 4 patches
// of 7 x 7, batches of 10) on the images of `data`, training into `run_dir`.
std::string tiny_model_flags(const fs::path& data, const fs::path& run_dir) {
  return "--data-dir " + data.string() + " --run-dir " + run_dir.string() +
         " --embedding-size 16 --heads 2 --encoders 1 --stem 4,8/2 --patch-size 7 --batch-size 10 --log-level warn";
}

TEST(VitTrainApp, TinyRunPrintsJson) {
  const auto data = data_with("tiny", "", "");
  const auto run_dir = test::fresh_temp_dir("vit_train_app_tiny_run");
  const auto run =
      run_vit_train("--json " + tiny_model_flags(data, run_dir) + " --epochs 2 --checkpoint-every 1", "tiny");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(test::count_lines(run.out), 1u) << run.out;
  for (const char* key :
       {"\"images_per_s\":", "\"test_accuracy\":", "\"checkpoints\":[", "\"final_loss\":", "\"epochs\":2",
        "\"iterations\":4", "\"wall_s\":", "\"test_loss\":", "\"stopped_by\":\"epochs\"", "\"world_size\":1"}) {
    EXPECT_NE(run.out.find(key), std::string::npos) << key << "\n" << run.out;
  }
  // The run directory, as seq2seq_train and lm_train report it (the same end of the line).
  EXPECT_NE(run.out.find("\"run_dir\":\"" + run_dir.string() + "\""), std::string::npos) << run.out;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));
  EXPECT_TRUE(fs::exists(run_dir / "metrics.csv"));

  // --resume without --run-dir continues in the resumed run's directory (not runs/vit).
  const auto resumed = run_vit_train("--resume " + run_dir.string() + " --epochs 3 --log-level warn", "tiny_resume");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0003.pt"));
  const auto report = test::run_program("apps/checkpoint_eval", "report " + run_dir.string() + " --threads 1",
                                        "vit_train_app_tiny_report", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(report.status, 0) << report.err;
  test::expect_progress_per_checkpoint(
      report, {"checkpoint_epoch_0001.pt", "checkpoint_epoch_0002.pt", "checkpoint_epoch_0003.pt"}, "accuracy ");
}

// A run that saves every K epochs writes best.pt alone in the epochs between; one stopped
// there (here: its numbered checkpoints gone) continues from best.pt, not from nothing.
TEST(VitTrainApp, AResumeWithoutANumberedCheckpointContinuesFromBestPt) {
  const auto data = data_with("between", "", "");
  const auto run_dir = test::fresh_temp_dir("vit_train_app_between_run");
  const auto first = run_vit_train(tiny_model_flags(data, run_dir) + " --epochs 3 --checkpoint-every 2", "between");
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_TRUE(fs::is_regular_file(run_dir / "best.pt"));
  fs::remove_all(run_dir / "checkpoints");
  const auto resumed =
      test::run_program("apps/vit_train", "--threads 1 --resume " + run_dir.string() + " --epochs 4 --json",
                        "vit_train_app_between_resume", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming from " + (run_dir / "best.pt").string() + " ("), std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.out.find("\"epochs\":4"), std::string::npos) << resumed.out;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0004.pt"));
}

// config.toml lists the run's settings (the preset expanded, the data folder and the run
// directory absolute) and repeats the run from another folder.
TEST(VitTrainApp, ConfigTomlRepeatsTheRunFromAnotherFolder) {
  const auto dir = test::fresh_temp_dir("vit_train_app_config");
  fs::create_directories(dir / "start" / "fashion #1");
  fs::create_directories(dir / "elsewhere");
  test::write_fake_fashion_mnist(dir / "start" / "fashion #1", 20, 10);
  const auto first = test::run_program("apps/vit_train",
                                       "--threads 1 --data-dir 'fashion #1' --run-dir a --epochs 1 --embedding-size 16"
                                       " --heads 2 --encoders 1 --stem 4,8/2 --patch-size 7 --batch-size 10"
                                       " --log-every 1 --log-level warn",
                                       "vit_train_app_config_first", "", test::in_folder((dir / "start").string()));
  ASSERT_EQ(first.status, 0) << first.err;
  const auto run_a = dir / "start" / "a";
  const auto config = util::read_file((run_a / "config.toml").string());
  for (const std::string key :
       {"\npreset=\"fashion\"\n", "\nstem=\"4,8/2\"\n", "\nlr=", "\nbatch-size=10\n",
        "\nwarmup-epochs=", "\ndataset=\"fashion-mnist\"\n", "\nflip=", "\nimage-size=28\n", "\nchannels=\"1\"\n"}) {
    EXPECT_NE(config.find(key), std::string::npos) << key << "\n" << config;
  }
  EXPECT_NE(config.find("\ndata-dir=\"" + (dir / "start" / "fashion #1").string() + "\"\n"), std::string::npos)
      << config;
  test::expect_config_repeats_run("apps/vit_train", run_a, dir / "elsewhere", "vit_train_app_config_again");
}

// A resume continues the checkpoint's model and data: --preset, --dataset and
// --normalization given again are refused (one line each), not silently ignored; a setting
// a resume can change (--epochs) is applied.
TEST(VitTrainApp, ResumeRefusesWhatTheCheckpointFixes) {
  const auto data = data_with("fixed", "", "");
  const auto run_dir = test::fresh_temp_dir("vit_train_app_fixed_run");
  const auto first = run_vit_train(tiny_model_flags(data, run_dir) + " --epochs 1", "fixed_first");
  ASSERT_EQ(first.status, 0) << first.err;
  test::expect_fixed_on_resume(run_vit_train, "--resume " + run_dir.string() + " --epochs 2",
                               {"--preset dlstudio", "--dataset fashion-mnist", "--normalization dataset",
                                "--patch-size 4", "--stem 8", "--image-size 16", "--channels 1"});
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt")) << "nothing trained when refused";
  const auto changed = run_vit_train("--resume " + run_dir.string() + " --epochs 2 --log-level warn", "fixed_allowed");
  ASSERT_EQ(changed.status, 0) << changed.err;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0002.pt"));
}

// Your own images: a folder of red and blue pictures of several sizes, PNG and JPEG, trained
// on; config.toml records the folder; the model classifies new images (--classify, text and
// JSON); a resume over a folder whose files changed, an empty class and a damaged image to
// classify are one line each.
TEST(VitTrainApp, AnImageFolderTrainsAndItsModelClassifiesImages) {
  const auto images = test::red_and_blue_folder("vit_train_app_images", 24);
  const auto run_dir = test::fresh_temp_dir("vit_train_app_images_run");
  const std::string model_flags =
      " --image-size 16 --epochs 8 --embedding-size 16 --heads 2 --encoders 1 --stem 8/2 --patch-size 2"
      " --batch-size 8 --validation-fraction 0.25 --random-erase 0 --log-level warn";
  const auto run = run_vit_train(
      "--json --image-folder " + images.string() + " --run-dir " + run_dir.string() + model_flags, "images");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("\"val_accuracy\":1"), std::string::npos) << "red against blue is learned\n" << run.out;
  EXPECT_NE(run.out.find("\"test_accuracy\":null"), std::string::npos) << "no test/ folder\n" << run.out;
  const auto config = util::read_file((run_dir / "config.toml").string());
  for (const std::string& key :
       std::vector<std::string>{"\ndataset=\"image-folder\"\n", "\nimage-size=16\n", "\nchannels=\"3\"\n",
                                "\ndata-dir=\"" + images.string() + "\"\n"}) {
    EXPECT_NE(config.find(key), std::string::npos) << key << "\n" << config;
  }
  // Its recipe on Fashion-MNIST: the folder's image size and channels give way to the dataset's.
  const auto on_fashion = test::run_program(
      "apps/vit_train",
      "--threads 1 --config " + (run_dir / "config.toml").string() + " --dataset fashion-mnist --data-dir " +
          data_with("recipe", "", "").string() + " --run-dir " + (run_dir / "fashion").string() + " --dry-run",
      "vit_train_app_images_recipe_on_fashion", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(on_fashion.status, 0) << on_fashion.err;
  EXPECT_NE(on_fashion.err.find("Data: image-size 28, channels 1, "), std::string::npos) << on_fashion.err;

  const auto fresh = test::fresh_temp_dir("vit_train_app_images_new");
  test::write_image_files(fresh, {{"red.jpg", test::jpeg_of(test::solid_image(64, 48, 230, 20, 20))},
                                  {"blue.png", test::png_of(test::solid_image(5, 9, 20, 20, 230))},
                                  {"broken.jpg", test::jpeg_of(test::solid_image(64, 48, 1, 2, 3)).substr(0, 200)}});
  const auto classify = [&](const std::string& args, const std::string& name) {
    return test::run_program("apps/checkpoint_eval", run_dir.string() + " --threads 1 " + args,
                             "vit_train_app_classify_" + name);
  };
  const auto text =
      classify("--classify " + (fresh / "red.jpg").string() + " " + (fresh / "blue.png").string() + " --top 2", "text");
  ASSERT_EQ(text.status, 0) << text.err;
  const auto red_at = text.out.find("red.jpg (64x48):"), blue_at = text.out.find("blue.png (5x9):");
  ASSERT_NE(red_at, std::string::npos) << text.out;
  ASSERT_NE(blue_at, std::string::npos) << text.out;
  // Each image's first row names its colour.
  EXPECT_NE(text.out.find("1 | red", red_at), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 | blue", blue_at), std::string::npos) << text.out;
  const auto verb = test::run_program("apps/checkpoint_eval",
                                      "classify " + run_dir.string() + " " + (fresh / "red.jpg").string() + " " +
                                          (fresh / "blue.png").string() + " --top 2 --threads 1",
                                      "vit_train_app_classify_verb");
  ASSERT_EQ(verb.status, 0) << verb.err;
  EXPECT_EQ(verb.out, text.out) << "the subcommand classifies as --classify does";
  const auto json = classify("--json --classify " + (fresh / "red.jpg").string(), "json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(test::count_lines(json.out), 1u) << json.out;
  EXPECT_NE(json.out.find("\"top\":[{\"class\":\"red\",\"probability\":"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"image_size\":16"), std::string::npos) << json.out;
  test::expect_one_line_error(classify("--classify " + (fresh / "broken.jpg").string(), "broken"),
                              (fresh / "broken.jpg").string() + ": a damaged JPEG image");
  // A bad image among good ones keeps its place with its reason; the others are classified.
  const auto mixed = classify("--classify " + (fresh / "red.jpg").string() + " " + (fresh / "broken.jpg").string() +
                                  " " + (fresh / "blue.png").string() + " --top 1",
                              "mixed");
  test::expect_one_line_error(mixed, (fresh / "broken.jpg").string() + ": a damaged JPEG image");
  for (const std::string part :
       {"red.jpg (64x48):", "broken.jpg: not classified: a damaged JPEG image", "blue.png (5x9):", "1 | blue"}) {
    EXPECT_NE(mixed.out.find(part), std::string::npos) << part << "\n" << mixed.out;
  }
  const auto mixed_json = classify(
      "--json --classify " + (fresh / "broken.jpg").string() + " " + (fresh / "blue.png").string() + " --top 1",
      "mixed_json");
  EXPECT_EQ(mixed_json.status, 1) << mixed_json.err;
  EXPECT_NE(mixed_json.out.find("broken.jpg\",\"error\":\"a damaged JPEG image"), std::string::npos) << mixed_json.out;
  EXPECT_NE(mixed_json.out.find("\"top\":[{\"class\":\"blue\""), std::string::npos) << mixed_json.out;
  test::expect_one_line_error(classify("", "no_test"), "no test/ folder");
  const auto missing = classify("--classify " + (fresh / "absent.png").string(), "absent");
  test::expect_one_line_error(missing, (fresh / "absent.png").string() + ": cannot open");
  EXPECT_EQ(missing.err.find((fresh / "absent.png").string() + ": " + (fresh / "absent.png").string()),
            std::string::npos)
      << "the file named once: " << missing.err;

  // Fine-tuning on other classes (red and zebra, after blue and red): the head's rows follow
  // the class names, not their places -- the new row 0 is the old row 1 (red), row 1 fresh.
  // The model is the parent's (image size, stem, patches, sizes): none of them is repeated.
  const auto tuned = test::fresh_temp_dir("vit_train_app_images_tuned");
  std::map<std::string, std::string> tuned_files;
  for (int i = 0; i < 8; ++i) {
    tuned_files["red/" + std::to_string(i) + ".png"] = test::png_of(test::solid_image(20, 20, 200, 30, 40));
    tuned_files["zebra/" + std::to_string(i) + ".png"] = test::png_of(test::solid_image(20, 20, 30, 200, 40));
  }
  test::write_image_files(tuned, tuned_files);
  const auto tuned_run = test::fresh_temp_dir("vit_train_app_images_tuned_run");
  const auto fine_tuned = test::run_program(
      "apps/vit_train",
      "--threads 1 --image-folder " + tuned.string() + " --run-dir " + tuned_run.string() + " --init-from " +
          run_dir.string() + " --batch-size 8 --epochs 1 --max-iters 1 --schedule constant --lr 1e-12",
      "vit_train_app_tuned", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(fine_tuned.status, 0) << fine_tuned.err;
  EXPECT_NE(fine_tuned.err.find("by class: 1 of 2 rows"), std::string::npos) << fine_tuned.err;
  const auto tensor_of = [](const fs::path& run, const std::string& wanted) {
    const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(run.string()));
    for (const auto& [name, tensor] : reader.module_tensors("model")) {
      if (name == wanted) return tensor;
    }
    return torch::Tensor();
  };
  const auto before = tensor_of(run_dir, "head_fc2.weight"), after = tensor_of(tuned_run, "head_fc2.weight");
  ASSERT_TRUE(before.defined() && after.defined());
  EXPECT_TRUE(torch::allclose(after[0], before[1], 0, 1e-6)) << "red's row";
  EXPECT_FALSE(torch::allclose(after[0], before[0], 0, 1e-6)) << "not blue's";

  // The same pictures in grey (--channels 1) from the colour run: the stem's first layer, which
  // reads the image, summed over the colours (timm's adapt_input_conv); the rest as it was.
  const auto grey_run = test::fresh_temp_dir("vit_train_app_images_grey_run");
  const auto grey = test::run_program("apps/vit_train",
                                      "--threads 1 --image-folder " + tuned.string() + " --channels 1 --run-dir " +
                                          grey_run.string() + " --init-from " + run_dir.string() +
                                          " --batch-size 8 --epochs 1 --max-iters 1 --schedule constant --lr 1e-12",
                                      "vit_train_app_grey", "", "DLS_LOG_LEVEL=info ");
  ASSERT_EQ(grey.status, 0) << grey.err;
  EXPECT_NE(grey.err.find("adapted: 3 channels there, summed into 1 here"), std::string::npos) << grey.err;
  const auto colour_stem = tensor_of(run_dir, "stem.0.weight"), grey_stem = tensor_of(grey_run, "stem.0.weight");
  ASSERT_TRUE(colour_stem.defined() && grey_stem.defined());
  EXPECT_EQ(grey_stem.size(1), 1);
  EXPECT_TRUE(torch::allclose(grey_stem, colour_stem.sum(1, /*keepdim=*/true), 1e-5, 1e-6));

  // The folder changed: a resume would redo another split, or train on other images, so it
  // is refused; an image replaced under its own name too.
  const auto first_red = images / "red" / fs::directory_iterator(images / "red")->path().filename();
  const auto red_bytes = util::read_file(first_red.string());
  test::write_bytes(first_red, test::png_of(test::solid_image(20, 20, 20, 20, 230)));
  const auto replaced =
      run_vit_train("--resume " + run_dir.string() + " --epochs 9 --log-level warn", "images_replaced");
  expect_vit_train_error(replaced, "the image folder's files have the run's names, but not all of their images are");
  test::write_bytes(first_red, red_bytes);
  test::write_bytes(images / "red" / "extra.png", test::png_of(test::solid_image(9, 9, 200, 0, 0)));
  const auto resumed = run_vit_train("--resume " + run_dir.string() + " --epochs 9 --log-level warn", "images_changed");
  expect_vit_train_error(resumed, "the image folder's files are not those the run began with");
  EXPECT_FALSE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0009.pt"));

  // An empty class: one line naming it, and no run directory.
  fs::create_directories(fresh / "classes" / "cat");
  fs::create_directories(fresh / "classes" / "dog");
  test::write_bytes(fresh / "classes" / "cat" / "1.png", test::png_of(test::solid_image(9, 9, 1, 1, 1)));
  const auto empty_run = fresh / "empty_run";
  expect_vit_train_error(
      run_vit_train("--image-folder " + (fresh / "classes").string() + " --run-dir " + empty_run.string() + model_flags,
                    "images_empty"),
      (fresh / "classes" / "dog").string() + ": no .png, .jpg or .jpeg images (an empty class)");
  EXPECT_FALSE(fs::exists(empty_run));
}

// CIFAR-10 without --data-dir: the folder `make data` fills ($DLS_DATA_DIR/cifar10), else
// one line saying how to get it.
TEST(VitTrainApp, Cifar10IsReadWhereMakeDataPutsIt) {
  const auto data = test::fresh_temp_dir("vit_train_app_cifar_data");
  const auto batches = data / "cifar10" / "cifar-10-batches-bin";
  fs::create_directories(batches);
  for (const char* batch :
       {"data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"}) {
    test::write_bytes(batches / (std::string(batch) + ".bin"), std::string(2 * 3073, '\0'));
  }
  const auto run_dir = test::fresh_temp_dir("vit_train_app_cifar_run");
  const auto found =
      test::run_program("apps/vit_train", "--threads 1 --dataset cifar10 --dry-run --run-dir " + run_dir.string(),
                        "vit_train_app_cifar", "", "DLS_DATA_DIR=" + data.string() + " ");
  ASSERT_EQ(found.status, 0) << found.err;
  // DLStudio's example is CIFAR-10's: its preset reads it without --dataset.
  const auto preset =
      test::run_program("apps/vit_train", "--threads 1 --preset dlstudio --dry-run --run-dir " + run_dir.string(),
                        "vit_train_app_cifar_preset", "", "DLS_LOG_LEVEL=info DLS_DATA_DIR=" + data.string() + " ");
  ASSERT_EQ(preset.status, 0) << preset.err;
  EXPECT_NE(preset.err.find("Data: image-size 32, channels 3, "), std::string::npos) << preset.err;
  const auto empty = test::fresh_temp_dir("vit_train_app_cifar_none");
  const auto missing =
      test::run_program("apps/vit_train", "--threads 1 --dataset cifar10 --dry-run --run-dir " + run_dir.string(),
                        "vit_train_app_cifar_none", "", "DLS_DATA_DIR=" + empty.string() + " ");
  expect_vit_train_error(missing, "or `make data` to fetch it into $DLS_DATA_DIR/cifar10");
}

}  // namespace
}  // namespace dls
