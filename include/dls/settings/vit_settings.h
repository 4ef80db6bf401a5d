// Everything that defines a visTransformer training run -- model config, data, optimizer,
// schedule, seed -- as its checkpoints record it ("model.*", "data.*", "optimizer.*",
// "train.*", "selection.*"). The presets that fill it in: train/tasks/vit_presets.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "dls/settings/common_settings.h"
#include "dls/util/declared.h"
#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"
#include "dls/data/vit_dataset.h"
#include "dls/models/vit.h"
#include "dls/util/key_values.h"

namespace dls::settings {

using util::saved_settings;
using util::Setting;

// Everything that defines a training run; saved in every checkpoint ("train.*" etc.).
struct ViTTrainSettings {
  std::string preset = "dlstudio";  // the preset these settings started from (information)
  ViTConfig model;
  data::ViTDataSettings data;  // data/vit_dataset.h
  std::size_t batch_size = 48;
  std::int64_t epochs = 60;
  OptimizerSettings optimizer;  // kind, betas, eps, weight decay, gradient clipping
  ScheduleKind schedule = ScheduleKind::kConstant;
  double lr = 1e-4;                         // constant rate, or the cosine schedule's peak
  double min_lr = 0.0;                      // cosine: the rate at the end of the last epoch
  double warmup_epochs = 0.0;               // cosine: linear warm-up length, in epochs
  double label_smoothing = 0.0;             // cross-entropy target smoothing
  std::uint64_t seed = 0;                   // initialisation, data order, augmentation, dropout
  SelectionSettings selection{"accuracy"};  // best.pt, early stopping, weight EMA

  // Where it runs, where it writes, when it stops: what every run has. Checkpoints every 10
  // epochs, metrics.csv rows every 50 steps.
  RunSettings run = RunSettings::task_defaults("runs/vit", /*checkpoint_every=*/10, /*log_every=*/50);

  // Every setting, in checkpoints under "model.", "data.", "train.", "optimizer.", "selection."
  // and "run.". The dataset and its folder are the program's own flags (they choose the
  // preset).
  template <typename Fields>
  static void declare(ViTTrainSettings& s, Fields& f) {
    auto& d = s.data;
    f.section("data", [&] {
      f.group("Data");
      f(d.dataset, Setting("dataset", "", ""));
      f(d.data_dir, Setting("data_dir", "", ""));
      f(d.image_size, Setting("image_size", "--image-size",
                              "an image folder's images resized to N x N pixels (the datasets have their own)")
                          .range(4, 1024)
                          .default_when_absent()
                          .fixed());
      f.property(
          Setting("channels", "--channels", "an image folder's images as 3 (colour) or 1 (grey) channels")
              .one_of({"1", "3"})
              .default_when_absent()
              .fixed(),
          [&] { return std::to_string(d.channels); }, [&](const std::string& n) { d.channels = std::stoi(n); });
      f(d.train_subset,
        Setting("train_subset", "--train-subset",
                "train on N training images only (the first N; of an image folder, N drawn across its classes)")
            .range(0, 1000000000));
      f(d.test_subset,
        Setting("test_subset", "--test-subset",
                "test on N test images only (the first N; of an image folder, N drawn across its classes)")
            .range(0, 1000000000));
      // Checkpoints written before the validation split trained on every training image.
      f(d.validation_fraction,
        Setting("validation_fraction", "--validation-fraction",
                "share of the training images held out for validation, which best.pt and --patience judge (the "
                "test images are only reported; default 0.1, 0: none)")
            .range(0, 0.9)
            .when_absent("0")
            .fixed());
      f(d.split_seed, Setting("split_seed", "--split-seed", "seed of the validation split (default 1234)")
                          .range(0, 18446744073709551615.0)
                          .default_when_absent()
                          .fixed());
      f(d.normalization,
        Setting("normalization", "--normalization", "dlstudio ((x-0.5)/0.5) or dataset (training mean/std)")
            .one_of({"dlstudio", "dataset"})
            .fixed());
      f(d.augment.pad,
        Setting("augment_pad", "--augment-pad", "random crop after zero padding by N pixels (0: off)").range(0, 64));
      f(d.augment.flip,
        Setting("augment_flip", "--flip", "random horizontal flips (--flip false for digit-like data)"));
      // Checkpoints written before random erasing existed did not erase.
      f(d.augment.erase, Setting("augment_erase", "--random-erase",
                                 "probability of blanking a random rectangle of each training image (0: off)")
                             .range(0, 1)
                             .default_when_absent());
    });
    f.group("Model");
    f.section("model", [&] { ViTConfig::declare(s.model, f); });
    declare_training_and_output(
        s, f, "images", "initialisation, data order, augmentation, dropout", {"accuracy", "loss"}, [&] {
          f(s.warmup_epochs,
            Setting("warmup_epochs", "--warmup-epochs", "cosine: warm-up length in epochs").range(0, 1000000));
        });
  }

  util::KeyValues to_settings() const { return saved_settings(*this); }
  // Throws std::runtime_error naming the missing or malformed setting.
  static ViTTrainSettings from_settings(const util::KeyValues& settings);
  // A new run from --init-from's weights builds its parent's model: the patches, stem, sizes
  // and dropout, the images it reads (an image folder's are resized to the parent's size and
  // channels) and how their pixels are normalised. The classes are this run's data's
  // (adapt_model_to_dataset): a head for other classes starts fresh, row by class name.
  void take_model_of(const ViTTrainSettings& parent);
  // Sets the model's image size, channels and classes from the dataset's name (an image
  // folder: data.image_size, data.channels and its class folders, listed).
  void adapt_model_to_dataset();
  // For the datasets, data.image_size and data.channels set to their images' own
  // (Fashion-MNIST 28 and 1, CIFAR-10 32 and 3), so that a run's start-up line and
  // config.toml show what it reads; an image folder's stay (a preset's are its defaults).
  void show_dataset_images();
  // Refuses, in one line, --image-size and --channels typed on the command line (`*_typed`)
  // with another value than a dataset's images have: they are an image folder's. A --config
  // file's (an image folder run's beside --dataset) gives way to the dataset's own.
  void check_image_flags(bool size_typed, bool channels_typed) const;
  // The start-up log's description: the preset and model, then describe_settings() (util/declared.h).
  std::string describe() const;
};

}  // namespace dls::settings
