// visTransformer checkpoints (kind "vit"): self-describing and resumable. One file holds
// the training settings (model config, data, optimizer, schedule, seed), the normalisation
// actually used, the progress (epochs done, step within the next epoch, optimizer steps),
// the latest metrics, the weights, the optimizer state and the CPU RNG state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "dls/settings/vit_settings.h"
#include "dls/data/image_transform.h"
#include "dls/models/vit.h"

namespace dls::checkpoint {

inline constexpr const char* kViTCheckpointKind = "vit";

struct ViTCheckpointContents {
  settings::ViTTrainSettings settings;
  data::Normalization normalization;
  // An image folder's (text sections "class_names", one per line, "image_files", its
  // listing's manifest, and "image_pixels", the digest of its decoded images: data::ViTDataset);
  // empty (0) for the built-in datasets, whose names the code knows. A checkpoint written
  // before the digest has 0.
  std::vector<std::string> class_names;
  std::string image_files;
  std::uint64_t pixel_digest = 0;
  double test_accuracy = -1;  // the latest per-epoch test accuracy, fraction (-1: none)
  double val_accuracy = -1;   // the latest per-epoch validation accuracy, fraction (-1: none)
  // Where the run stood (its epoch's loss sum is Σ batch loss × batch images): read from the
  // file, which the training loop wrote it into (write_vit_checkpoint writes it too).
  RunState state;
};

// Writes the settings (training settings, normalisation, latest accuracies) into a writer of
// kind kViTCheckpointKind: everything but the run's state, the weights, optimizer and RNG state.
void describe_vit_checkpoint(CheckpointWriter& writer, const ViTCheckpointContents& contents);

// A whole checkpoint: describe_vit_checkpoint, the run's state, the model, the optimizer (if any) and the CPU
// RNG state. Writes atomically to `path`; the model and optimizer must be on the CPU or any
// device (they are serialised as they are, tensors are moved to the CPU on reading).
void write_vit_checkpoint(const std::string& path, const ViTCheckpointContents& contents, const visTransformer& model,
                          const torch::optim::Optimizer* optimizer);

// Reads settings, normalisation and state (CheckpointError for anything wrong).
ViTCheckpointContents read_vit_contents(const CheckpointReader& reader);

// The model's classes in output order: an image folder's names as saved, else the built-in
// dataset's (CIFAR-10's, Fashion-MNIST's); empty when the names are not known (a built-in
// dataset's list of another length than the model's classes).
std::vector<std::string> class_names_of(const ViTCheckpointContents& contents);

// The training settings of the newest checkpoint in `dir_or_file` (a resumed run starts from
// them; flags then override).
settings::ViTTrainSettings read_vit_settings(const std::string& dir_or_file);

// Rebuilds the model from the checkpoint alone and loads its weights (on the CPU).
visTransformer load_vit_model(const CheckpointReader& reader, const settings::ViTTrainSettings& settings,
                              Weights weights = Weights::kEvaluation);

}  // namespace dls::checkpoint
