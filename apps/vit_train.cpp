// vit_train: trains DLStudio's visTransformer on Fashion-MNIST, CIFAR-10 or a folder of images.
//
//   vit_train                                   Fashion-MNIST, "fashion" preset
//   vit_train --dataset cifar10 --data-dir D    CIFAR-10, DLStudio's example ("dlstudio")
//   vit_train --image-folder D                  your own images, D/CLASS/*.jpg ("fashion" preset)
//   vit_train --resume runs/vit                 continue the newest checkpoint of a run
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "command_line.h"
#include "cli_overrides.h"
#include "config_file.h"
#include "default_corpus.h"
#include "run_flags.h"
#include "declared_flags.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/train/tasks/vit_presets.h"
#include "dls/train/tasks/vit_trainer.h"
#include "dls/util/json.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "dls/train/stop_signals.h"
#include "error_line.h"

namespace {

using dls::settings::ViTTrainSettings;
using Overrides = dls::apps::Overrides<dls::settings::ViTTrainSettings>;

void print_json(const dls::train::ViTTrainResult& r, const std::string& precision) {
  dls::util::JsonWriter json;
  json.begin_object()
      .key("images_per_s")
      .value(r.images_per_s)
      .key("test_accuracy")
      .value(r.test_accuracy)
      .key("test_loss")
      .value(r.test_loss)
      .key("val_accuracy")
      .value(r.val_accuracy)
      .key("val_loss")
      .value(r.val_loss);
  dls::apps::end_run_json(json, r, precision);
  std::cout << json.str() << std::endl;
}

// Refuses --image-size and --channels for the datasets, whose images have their own (by
// value, not by count: a config.toml lists every setting).
void check_image_folder_flags(const dls::data::ViTDataSettings& before, const dls::data::ViTDataSettings& data) {
  if (data.dataset == "image-folder") return;
  if (data.image_size != before.image_size) throw std::runtime_error("--image-size: only for an image folder");
  if (data.channels != before.channels) throw std::runtime_error("--channels: only for an image folder");
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train DLStudio's visTransformer (vision transformer) on Fashion-MNIST, CIFAR-10 or your own images.\n"
      "A preset gives every setting; each flag below overrides one."};
  app.footer(dls::apps::kTrainerExitStatus);
  app.get_formatter()->column_width(36);
  Overrides overrides;
  std::string dataset = "fashion-mnist", data_dir, preset, image_folder;
  dls::apps::InvocationFlags invocation;

  // The dataset chooses the preset; every other flag is a declared setting.
  auto* dataset_option = app.add_option("--dataset", dataset, "fashion-mnist, cifar10 or image-folder (--data-dir DIR)")
                             ->capture_default_str()
                             ->group("Data")
                             ->check(CLI::IsMember({"fashion-mnist", "cifar10", "image-folder"}));
  overrides.record("--dataset", [](const auto& s) { return s.data.dataset; });
  auto* data_dir_option =
      app.add_option("--data-dir", data_dir,
                     "dataset folder (default for Fashion-MNIST: /usr/share/datasets/fashion-mnist/, for CIFAR-10: "
                     "$DLS_DATA_DIR/cifar10, which `make data` fills; required for an image folder)")
          ->group("Data");
  overrides.record("--data-dir", [](const auto& s) { return dls::apps::absolute_path(s.data.data_dir); });
  app.add_option("--image-folder", image_folder,
                 "your own images: DIR/CLASS/*.png|*.jpg|*.jpeg, one sub-folder per class (or DIR/train/CLASS/... "
                 "and DIR/test/CLASS/...), any size, resized to --image-size; the same as --dataset image-folder "
                 "--data-dir DIR")
      ->group("Data")
      ->excludes(dataset_option)
      ->excludes(data_dir_option);
  dls::apps::add_declared_flags(app, overrides, "Data");
  app.add_option("--preset", preset,
                 "dlstudio (DLStudio's CIFAR-10 example) or fashion (Fashion-MNIST on a small CPU), the files "
                 "data/presets/vit/NAME.toml (your own: --config FILE); default by dataset")
      ->group("Training")
      ->check(CLI::IsMember(dls::train::vit_preset_names()));
  overrides.record("--preset", [](const auto& s) { return s.preset; });
  dls::apps::add_invocation_flags(app, invocation, "Training", "Output");

  dls::apps::add_version_flag(app, "vit_train");
  dls::apps::keep_invocation_flags_out_of_config(app);
  dls::apps::add_config_option(app);
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("vit_train"));
  if (!image_folder.empty()) {
    dataset = "image-folder";
    data_dir = image_folder;
  }
  // CIFAR-10 where `make data` puts it (data/fetch_data.sh), when --data-dir does not say.
  const auto fetched_cifar = dls::apps::default_data_dir() / "cifar10";
  if (dataset == "cifar10" && data_dir.empty() && invocation.resume.empty() && std::filesystem::exists(fetched_cifar)) {
    data_dir = fetched_cifar.string();
  }
  try {
    const int threads = dls::apps::configure_invocation(invocation);
    ViTTrainSettings settings;
    if (!invocation.resume.empty()) {
      settings = dls::checkpoint::read_vit_settings(invocation.resume);
      settings.run = settings.run.resume_defaults();
    } else {
      settings = dls::train::vit_preset(preset.empty() ? dls::train::default_vit_preset(dataset) : preset);
      settings.data.dataset = dataset;
      settings.data.data_dir = dls::apps::absolute_path(data_dir);  // a resume elsewhere finds it
    }
    if (!data_dir.empty()) settings.data.data_dir = dls::apps::absolute_path(data_dir);
    const ViTTrainSettings before_flags = settings;
    dls::apps::apply_overrides(overrides, settings);
    if (!invocation.resume.empty()) {
      dls::apps::check_fixed_on_resume(app, overrides, before_flags, settings, {"--preset", "--dataset"});
    } else {
      check_image_folder_flags(before_flags.data, settings.data);
      settings.adapt_model_to_dataset();  // after the flags: an image folder's size and channels
    }
    settings.model.validate();
    // On a CPU, chunks of the batch on threads of their own beat one pass with several
    // intra-op threads for these small models (bench/PERFORMANCE.md): one worker per thread.
    dls::apps::finish_run_settings(app, settings.run, invocation, threads,
                                   dls::apps::resolved_config(overrides, settings, "vit_train"));
    const auto result = dls::train::train_vit(settings);
    if (invocation.json && result.parallel.rank == 0) {
      print_json(result, dls::util::precision_name(settings.run.precision));
    }
    return 0;
  } catch (const dls::train::TrainingInterrupted& stopped) {
    std::fprintf(stderr, "interrupted: %s\n", stopped.what());
    return stopped.exit_status();
  } catch (const dls::train::TrainingDiverged& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 3;
  } catch (const std::exception& error) {
    return dls::apps::print_error_line(error);
  }
}
