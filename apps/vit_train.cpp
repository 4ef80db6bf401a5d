// vit_train: trains DLStudio's visTransformer on Fashion-MNIST, CIFAR-10 or a folder of images.
//
//   vit_train                                   Fashion-MNIST, "fashion" preset
//   vit_train --dataset cifar10 --data-dir D    CIFAR-10, DLStudio's example ("dlstudio")
//   vit_train --image-folder D                  your own images, D/CLASS/*.jpg ("fashion" preset)
//   vit_train --resume runs/vit                 continue the newest checkpoint of a run
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/cli/declared_flags.h"
#include "dls/cli/run_flags.h"
#include "dls/data/data_folder.h"
#include "dls/train/tasks/vit_presets.h"
#include "dls/train/tasks/vit_trainer.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/file_io.h"
#include "init_from_parent.h"

using dls::settings::ViTTrainSettings;

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train DLStudio's visTransformer (vision transformer) on Fashion-MNIST, CIFAR-10 or your own images.\n"
      "A preset gives every setting; each flag below overrides one."};
  app.get_formatter()->column_width(36);
  dls::cli::Overrides<ViTTrainSettings> overrides;
  std::string dataset = "fashion-mnist", data_dir, preset, image_folder;
  dls::settings::Invocation invocation;

  // The dataset chooses the preset; every other flag is a declared setting.
  app.add_option("--dataset", dataset,
                 "fashion-mnist, cifar10 or image-folder (--data-dir DIR); default fashion-mnist, with --preset "
                 "dlstudio cifar10")
      ->group("Data")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10", "image-folder"}));
  overrides.record("--dataset", [](const auto& s) { return s.data.dataset; });
  app.add_option("--data-dir", data_dir,
                 "dataset folder (default for Fashion-MNIST: /usr/share/datasets/fashion-mnist/, for CIFAR-10: "
                 "$DLS_DATA_DIR/cifar10, which `make data` fills; required for an image folder)")
      ->group("Data");
  overrides.record("--data-dir", [](const auto& s) { return dls::util::absolute_path(s.data.data_dir); });
  app.add_option("--image-folder", image_folder,
                 "your own images: DIR/CLASS/*.png|*.jpg|*.jpeg, one sub-folder per class (or DIR/train/CLASS/... "
                 "and DIR/test/CLASS/...), any size, resized to --image-size; the same as --dataset image-folder "
                 "--data-dir DIR")
      ->group("Data")
      ->check(CLI::Validator(  // an unset variable ("$DIR") would otherwise train Fashion-MNIST
          [](const std::string& dir) { return dir.empty() ? std::string("an empty path: which folder?") : ""; }, ""));
  dls::cli::add_declared_flags(app, overrides, "Data");
  app.add_option("--preset", preset,
                 "dlstudio (DLStudio's CIFAR-10 example) or fashion (Fashion-MNIST on a small CPU), the files "
                 "data/presets/vit/NAME.toml (your own: --config FILE); default by dataset")
      ->group("Training")
      ->check(CLI::IsMember(dls::train::vit_preset_names()));
  overrides.record("--preset", [](const auto& s) { return s.preset; });
  dls::cli::add_option_flags(app, invocation, ~0u, "Training");

  if (const auto stop = dls::cli::parse_trainer_command_line(app, "vit_train", argc, argv)) return *stop;
  if (preset == "dlstudio" && app.count("--dataset") == 0 && image_folder.empty())
    dataset = "cifar10";  // its example's
  dls::data::default_image_data(dataset, data_dir, image_folder, !invocation.resume.empty());
  return dls::cli::exit_status_of_training([&] {
    for (const char* other : {"--dataset", "--data-dir"}) {  // a --config file's give way to --image-folder
      if (app.count("--image-folder") > 0 && dls::cli::typed_on_command_line(app, other))
        throw std::invalid_argument(std::string("--image-folder excludes ") + other + " (it is both)");
    }
    const int threads = dls::cli::configure_invocation(invocation);
    dls::checkpoint::OpenedCheckpoints opened;   // read once: here for the settings, then by the trainer
    const auto read = [&](const auto& reader) {  // a checkpoint's settings; its images where --data-dir says
      auto settings = dls::checkpoint::read_vit_contents(reader).settings;
      if (!data_dir.empty()) settings.data.data_dir = dls::util::absolute_path(data_dir);
      return settings;
    };
    const auto fresh = [&] {
      auto settings = dls::train::vit_preset(preset.empty() ? dls::train::default_vit_preset(dataset) : preset);
      settings.data.dataset = dataset;
      settings.data.data_dir = dls::util::absolute_path(data_dir);  // a resume elsewhere finds it
      if (const auto parent =
              dls::apps::init_from_parent(overrides, dls::checkpoint::kViTCheckpointKind, read, opened.init_from))
        settings.take_model_of(parent->second);
      return settings;
    };
    auto settings =
        dls::cli::settings_from_flags(app, overrides, invocation, opened.resume, dls::checkpoint::kViTCheckpointKind,
                                      read, fresh, {"--preset", "--dataset"})
            .settings;
    if (invocation.resume.empty()) {
      settings.check_image_flags(dls::cli::typed_on_command_line(app, "--image-size"),
                                 dls::cli::typed_on_command_line(app, "--channels"));
      settings.adapt_model_to_dataset();  // after the flags: an image folder's size and channels
      settings.show_dataset_images();
    }
    settings.model.validate();
    // One batch-chunk worker per thread beats intra-op threads for these small models (bench/PERFORMANCE.md).
    dls::cli::finish_run_settings(app, settings.run, invocation, threads,
                                  dls::cli::resolved_config(overrides, settings, "vit_train"));
    return dls::cli::print_training_result(invocation, dls::train::train_vit(settings, std::move(opened)),
                                           settings.run);
  });
}
