// --init-from for each task (train/init_from.h): which checkpoints a task starts from and
// how their tensors map onto its model (private to src/train).
//   seq2seq_train: a seq2seq checkpoint (both sides' rows by token), or an lm_train checkpoint
//     into the target side -- the embeddings and the decoder blocks (the lecture's
//     pre-train-then-fine-tune; the cross-attention starts fresh);
//   lm_train: an lm checkpoint, or a seq2seq checkpoint's target side and decoder;
//   vit_train: a vit checkpoint; the classifier's rows by class name when both know their
//     classes' names (a head for other classes keeps the rows of the classes both have), else
//     a head for another number of classes starts fresh.
#pragma once

#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "dls/layers/transformer_config.h"
#include "dls/train/init_from.h"

namespace dls::train {

// `reader`: the checkpoint --init-from names (a file, or a run directory's newest), opened once
// by the trainer (epoch_task_run.h). The weights read are those an evaluation reads: the
// moving average when the checkpoint holds one.
// `variant`: the model's. A checkpoint of the other variant is refused: its tensors have the
// same names and shapes, but LayerNorm sits elsewhere, so they would compute something else.
InitReport init_seq2seq_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, Variant variant,
                             const std::vector<std::string>& source_words,
                             const std::vector<std::string>& target_words);
InitReport init_lm_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, Variant variant,
                        const std::vector<std::string>& words);
// `channels`: the model's image channels (a checkpoint's for others is adapted, InitPlan);
// `class_names`: the run's classes in output order (empty: not known).
InitReport init_vit_from(const checkpoint::CheckpointReader& reader, torch::nn::Module& model, std::int64_t channels,
                         const std::vector<std::string>& class_names);

// Logs the report: its summary and what was not loaded as it is; every parameter at debug level.
void log_init_report(const InitReport& report);

// `config_toml` (a run's config.toml text) with its init-from line naming `file`, made
// absolute: the checkpoint a run directory given to --init-from resolved to.
std::string with_init_from_file(const std::string& config_toml, const std::string& file);

// The checkpoint --init-from read, resolved (links, ".", a trailing "/") before the run
// directory is claimed, so that when that directory was the run it read from and went aside
// (--init-from DIR --run-dir DIR --overwrite), the file is named at its new place.
class InitFileBeforeMove {
 public:
  InitFileBeforeMove(const std::string& file, const std::string& run_dir);
  // The file's path now that the run directory's earlier run is at `aside` ("": it stayed).
  std::string after_move_to(const std::string& aside) const;

 private:
  std::string file_, run_dir_;  // weakly canonical
};

}  // namespace dls::train
