#include "train/checkpoint_policy.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/rng_state.h"
#include "dls/layers/saved_tensors.h"
#include "dls/train/budgeted_schedule.h"
#include "dls/train/optim/saved_optimizer.h"
#include "dls/train/parallel/distributed.h"
#include "dls/train/run/run_directory.h"
#include "dls/train/run/run_identity.h"
#include "dls/util/file_io.h"
#include "train/run_selection.h"
#include "train/training_support.h"

namespace dls::train {

CheckpointPolicy::CheckpointPolicy(TrainingTask& task, const LoopOptions& options, DistributedContext& dist,
                                   RunDirectory* run, RunSelection* selection, const BudgetedSchedule& schedule,
                                   torch::optim::Optimizer& optimizer, std::string run_id, std::string resumed_from)
    : task_(task),
      options_(options),
      dist_(dist),
      run_(run),
      selection_(selection),
      schedule_(schedule),
      optimizer_(optimizer),
      run_id_(std::move(run_id)),
      last_checkpoint_(std::move(resumed_from)) {}

void CheckpointPolicy::save(const RunState& state, bool improved) {
  check_finite_weights(state);
  if (!dist_.is_main()) return;
  const std::string path = run_->checkpoint_path(state.file_epoch());
  auto* best = selection_->best();
  if (improved) best->set_source(std::filesystem::path(path).filename().string());
  write_checkpoint(path, state);
  if (improved) {
    util::link_atomically(path, run_->file("best.pt"));
    announce_best();
  }
  run_->record_checkpoint(path);
  run_->prune_checkpoints(options_.run.keep_last, best != nullptr ? best->source() : "");
  written_.push_back(path);
  last_checkpoint_ = path;
  spdlog::info("checkpoint {}", path);
}

void CheckpointPolicy::save_best_only(const RunState& state) {
  check_finite_weights(state);
  if (!dist_.is_main()) return;
  selection_->best()->set_source("");
  write_checkpoint(run_->file("best.pt"), state);
  announce_best();
}

// Weights that are not finite are never saved (a later --keep-last would prune good
// checkpoints for them); the loss can stay finite while some weights are not. Every rank
// holds the same weights, so every rank stops here alike.
void CheckpointPolicy::check_finite_weights(const RunState& state) const {
  torch::NoGradGuard no_grad;
  const auto finite = [](const torch::Tensor& t) { return torch::isfinite(t).all().item<bool>(); };
  auto& model = task_.model();
  for (const auto& parameter : model.parameters()) {
    if (finite(parameter)) continue;
    // Named as the checkpoint names it: an attention layer's fused tensor by its head's WQ/WK/WV.
    std::string name = "?";
    for (const auto& [saved_name, part] : saved_parameters(model)) {
      if (part.storage().is_alias_of(parameter.storage()) && !finite(part)) {
        name = saved_name;
        break;
      }
    }
    throw TrainingDiverged("training diverged by step " + std::to_string(state.global_step) + ": parameter '" + name +
                           "' is not finite; last good checkpoint: " + last_good());
  }
}

// Once per better score, never for an epoch that did not better it.
void CheckpointPolicy::announce_best() const {
  const auto* best = selection_->best();
  spdlog::info("{}: epoch {}, the best validation {} so far", run_->file("best.pt"), best->best_epoch(),
               score_text(best->metric(), best->best_value()));
}

// Rank 0 writes the checkpoint of `state` from CPU copies (so that any machine reads it),
// with the world size that trained it. The model and the optimizer's state stay where and
// what they are: a CUDA graph and the flat gradient and moment buffers hold them by address.
void CheckpointPolicy::write_checkpoint(const std::string& path, const RunState& state) {
  auto& model = task_.model();
  checkpoint::CheckpointWriter writer(task_.checkpoint_kind());
  task_.describe_checkpoint(writer);
  checkpoint::describe_run_state(writer, state);
  writer.add_module_on_cpu("model", model);
  selection_->describe(writer);  // the moving average, the best score
  schedule_.describe(writer);    // --time-limit: the budget and the schedule's end
  const OptimizerStateOnCpu optimizer_on_cpu(optimizer_);
  add_saved_optimizer(writer, "optimizer", optimizer_, model);
  writer.add_tensor("rng", checkpoint::cpu_generator_state());
  writer.add_text(kRunIdText, run_id_);
  writer.add_text("distributed",
                  "world_size=" + std::to_string(dist_.world_size()) + "\nbackend=" + dist_.backend() + "\n");
  writer.save(path);
}

}  // namespace dls::train
