// Ranks started alike: every rank of a data-parallel run must train the same model on the same
// data with the same settings, or the gradients they sum belong to different problems. Ranks
// given other flags trained on silently (another --batch-size or --lr: a loss that rose), and
// other data ended one rank in a Gloo abort while the other waited out --dist-timeout. Each
// rank describes what it was started with; the descriptions are compared before the first
// collective that would go wrong.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <torch/nn/module.h>

namespace dls::train {

class DistributedContext;

// What must agree across ranks, one "key=value" line each: the run's settings (its config.toml
// text) without the values that may differ -- absolute paths (ranks on other machines may keep
// the data elsewhere) and the device -- then the model's parameter count and a digest of its
// tensors' names and shapes (other data gives other vocabularies), the steps of an epoch
// (other data, another split), a digest of the training data as the task encoded it
// (TrainingTask::training_data_digest: other data of the same shape, say two sentences
// swapped), and the step the run resumes from (0 for a fresh run: ranks resumed from
// different checkpoints of one run).
std::string rank_description(const std::string& config_toml, const torch::nn::Module& model,
                             std::int64_t steps_per_epoch, std::uint64_t training_data_digest,
                             std::int64_t resumed_step);

// `hash` carried on over a tensor's sizes and values (a CPU tensor; contiguous or not), for
// TrainingTask::training_data_digest.
std::uint64_t tensor_digest(std::uint64_t hash, const torch::Tensor& values);

// Throws std::runtime_error on every rank (one line, the same on each) when any rank's
// description differs from rank 0's, naming the rank and the first line that differs. One
// all-gather; in one process nothing, and `describe` (which returns the description: a data
// digest reads the whole training set) is not called.
void check_ranks_agree(DistributedContext& dist, const std::function<std::string()>& describe);

// Runs `work` on rank 0 alone and gives every rank what it returned; when it throws, rank 0
// rethrows it and every other rank throws its one line (std::runtime_error) -- what rank 0 alone
// may refuse (the run directory, its lock) is refused on every rank, not found by the others as
// a lost peer at their next collective. One all-gather, on every rank; in one process `work`'s
// result, nothing shared.
std::string from_main_rank(DistributedContext& dist, const std::function<std::string()>& work);

}  // namespace dls::train
