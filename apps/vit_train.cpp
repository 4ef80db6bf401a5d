// vit_train: trains DLStudio's visTransformer on Fashion-MNIST or CIFAR-10.
//
//   vit_train                                   Fashion-MNIST, "fashion" preset
//   vit_train --dataset cifar10 --data-dir D    CIFAR-10, DLStudio's example ("dlstudio")
//   vit_train --resume runs/vit                 continue the newest checkpoint of a run
#include <algorithm>
#include <cstdio>
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
#include "run_flags.h"
#include "selection_flags.h"
#include "training_flags.h"
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

using dls::apps::flag_setting;
using dls::apps::setting;

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

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train DLStudio's visTransformer (vision transformer) on Fashion-MNIST or CIFAR-10.\n"
      "A preset gives every setting; each flag below overrides one."};
  app.footer(dls::apps::kTrainerExitStatus);
  app.get_formatter()->column_width(36);
  Overrides overrides;
  std::string dataset = "fashion-mnist", data_dir, preset;
  dls::apps::InvocationFlags invocation;

  // Data.
  const std::string data = "Data";
  app.add_option("--dataset", dataset, "fashion-mnist or cifar10")
      ->capture_default_str()
      ->group(data)
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}));
  overrides.record("--dataset", [](const auto& s) { return s.data.dataset; });
  app.add_option(
         "--data-dir", data_dir,
         "dataset folder (default for Fashion-MNIST: /usr/share/datasets/fashion-mnist/; required for CIFAR-10)")
      ->group(data);
  overrides.record("--data-dir", [](const auto& s) { return dls::apps::absolute_path(s.data.data_dir); });
  setting(
      app, overrides, "--train-subset", "train on the first N training images only",
      [](auto& s) -> auto& { return s.data.train_subset; })
      ->check(dls::apps::in_range(0, 1000000000))
      ->group(data);
  setting(
      app, overrides, "--test-subset", "test on the first N test images only",
      [](auto& s) -> auto& { return s.data.test_subset; })
      ->check(dls::apps::in_range(0, 1000000000))
      ->group(data);
  dls::apps::add_validation_split_flags(
      app, overrides,
      "share of the training images held out for validation, which best.pt and --patience judge (the test images "
      "are only reported; default 0.1, 0: none)",
      data);
  setting(
      app, overrides, "--normalization", "dlstudio ((x-0.5)/0.5) or dataset (training mean/std)",
      [](auto& s) -> auto& { return s.data.normalization; })
      ->group(data)
      ->check(CLI::IsMember({"dlstudio", "dataset"}));
  setting(
      app, overrides, "--augment-pad", "random crop after zero padding by N pixels (0: off)",
      [](auto& s) -> auto& { return s.data.augment.pad; })
      ->check(dls::apps::in_range(0, 64))
      ->group(data);
  setting(
      app, overrides, "--flip", "random horizontal flips (--flip false for digit-like data)",
      [](auto& s) -> auto& { return s.data.augment.flip; })
      ->group(data);
  setting(
      app, overrides, "--random-erase", "probability of blanking a random rectangle of each training image (0: off)",
      [](auto& s) -> auto& { return s.data.augment.erase; })
      ->check(CLI::Range(0.0, 1.0))
      ->group(data);

  // Model.
  const std::string model = "Model";
  setting(
      app, overrides, "--patch-size",
      "patch side p, in pixels of the stem's output (of the image without a stem), which it must divide",
      [](auto& s) -> auto& { return s.model.patch_size(); })
      ->check(dls::apps::in_range(1, 4096))
      ->group(model);
  dls::apps::add_transformer_flags(app, overrides, model);
  setting(
      app, overrides, "--encoders", "number of BasicEncoders", [](auto& s) -> auto& { return s.model.num_encoders(); })
      ->check(dls::apps::in_range(1, 1000))
      ->group(model);
  setting<std::string>(
      app, overrides, "--variant", "FG (post-LN, DLStudio) or PreLN",
      [](auto& s, auto v) { s.model.transformer().variant(dls::parse_variant(v)); },
      [](const auto& s) { return dls::to_string(s.model.transformer().variant()); })
      ->group(model);
  setting<std::string>(
      app, overrides, "--layout", "positionwise (DLStudio >= 2.5), vaswani or dlstudio (flattened)",
      [](auto& s, auto v) { s.model.transformer().layout(dls::parse_layout(v)); },
      [](const auto& s) { return dls::to_string(s.model.transformer().layout()); })
      ->group(model);
  setting(
      app, overrides, "--conv-patch-embedding", "project patches with Conv2d instead of Linear",
      [](auto& s) -> auto& { return s.model.conv_patch_embedding(); })
      ->group(model);
  setting<std::string>(
      app, overrides, "--stem",
      "3x3 convolutions (GELU) before the patches are cut, as CHANNELS[/STRIDE] per layer, e.g. "
      "32,64/2,128/2 (\"\": none, DLStudio's ViT); the patch size counts the last layer's pixels",
      [](auto& s, auto v) { s.model.stem(dls::parse_stem(v)); },
      [](const auto& s) { return dls::stem_to_string(s.model.stem()); })
      ->group(model);
  setting<std::string>(
      app, overrides, "--pixel-attention",
      "an inter-pixel attention block (DLStudio's GenerativeDiffusion AttentionBlock) after stem layer LAYER, as "
      "LAYER[:HEADS], e.g. 3 or 3:4 (\"\": none); that layer's channels must be a multiple of 32",
      [](auto& s, auto v) { s.model.pixel_attention(dls::parse_pixel_attention(v)); },
      [](const auto& s) { return dls::pixel_attention_to_string(s.model.pixel_attention()); })
      ->group(model);
  setting(
      app, overrides, "--head-hidden", "hidden width of the classification head",
      [](auto& s) -> auto& { return s.model.head_hidden_size(); })
      ->check(dls::apps::in_range(1, 65536))
      ->group(model);
  setting(
      app, overrides, "--head-dropout", "dropout before the head (training only)",
      [](auto& s) -> auto& { return s.model.head_dropout(); })
      ->check(dls::apps::in_range(0, 0.99))
      ->group(model);

  // Training.
  const std::string training = "Training";
  app.add_option("--preset", preset,
                 "dlstudio (DLStudio's CIFAR-10 example) or fashion (Fashion-MNIST on a small CPU); default by dataset")
      ->group(training)
      ->check(CLI::IsMember(dls::train::vit_preset_names()));
  overrides.record("--preset", [](const auto& s) { return s.preset; });
  dls::apps::add_epoch_flags(app, overrides, "images", training);
  dls::apps::add_cosine_schedule_flags(app, overrides, training);
  setting(
      app, overrides, "--warmup-epochs", "cosine: warm-up length in epochs",
      [](auto& s) -> auto& { return s.warmup_epochs; })
      ->check(dls::apps::in_range(0, 1000000))
      ->group(training);
  dls::apps::add_optimizer_flags(app, overrides, "initialisation, data order, augmentation, dropout", training);

  // Output.
  const std::string output = "Output";
  dls::apps::add_selection_flags<dls::settings::ViTTrainSettings>(
      app, overrides, {"accuracy", "loss"}, [](auto& s) -> auto& { return s.selection; }, output);
  dls::apps::add_run_flags<ViTTrainSettings>(
      app, overrides, invocation, [](auto& s) -> auto& { return s.run; }, "runs/vit", training, output);

  dls::apps::add_version_flag(app, "vit_train");
  dls::apps::keep_invocation_flags_out_of_config(app);
  dls::apps::add_config_option(app);
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("vit_train"));
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
      settings.adapt_model_to_dataset();
    }
    if (!data_dir.empty()) settings.data.data_dir = dls::apps::absolute_path(data_dir);
    const ViTTrainSettings before_flags = settings;
    dls::apps::apply_overrides(overrides, settings);
    if (!invocation.resume.empty()) {
      dls::apps::check_fixed_on_resume(
          app, overrides, before_flags, settings,
          {"--preset", "--dataset", "--normalization", "--validation-fraction", "--split-seed"});
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
