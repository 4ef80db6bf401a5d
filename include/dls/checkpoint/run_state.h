// Where a run stands: the training loop's state, one struct for every kind of training. The
// loop keeps it, and saves it in each checkpoint under "state." (the task adds only its own
// sections: settings, vocabularies, split, normalisation, latest evaluation); readers of any
// kind's checkpoint find it in the contents they read. Files written before this layout (a
// language model's or ViT's own key names, a seq2seq checkpoint's 1-based "progress.") are
// read into it as well.
#pragma once

#include <cmath>
#include <cstdint>

#include "dls/util/declared.h"
#include "dls/util/key_values.h"

namespace dls::checkpoint {

class CheckpointWriter;

struct RunState {
  std::int64_t completed_epochs = 0;  // whole epochs done
  std::int64_t step_in_epoch = 0;     // steps done in epoch completed_epochs + 1
  std::int64_t steps_per_epoch = 0;   // of the run's epochs (0: not known -- a seq2seq file from before)
  std::int64_t global_step = 0;       // optimizer steps done in all
  double wall_s = 0;                  // training wall time of the run, all invocations
  double train_loss = NAN;            // mean loss of the latest (possibly partial) epoch
  double examples_per_s = 0;          // training throughput of the latest epoch, wall-clock (its evaluation aside)
  // Sums over the steps done in the epoch in progress (a resumed epoch's means cover it all).
  double epoch_loss_sum = 0;     // Σ batch loss × loss_weight
  double epoch_loss_weight = 0;  // Σ loss_weight
  std::int64_t epoch_examples =
      0;  // examples trained (-1: not saved -- a seq2seq file from before; its task counts them)
  std::int64_t epoch_correct = 0;  // correct training predictions (tasks with an accuracy)
  // Sums over the steps since the latest step row of metrics.csv (the next row's means), so
  // that the first row after a resume averages as many steps as any other.
  double window_loss_sum = 0;
  double window_loss_weight = 0;
  std::int64_t window_correct = 0;
  std::int64_t window_examples = 0;

  // The epoch a checkpoint of this state is named after: the one in progress, if any.
  std::int64_t file_epoch() const { return step_in_epoch > 0 ? completed_epochs + 1 : completed_epochs; }
  // Epochs done, fractional when stopped inside an epoch (2.25).
  double epochs_done() const;

  // Its fields under their keys, once (util/declared.h): those every "state." section has
  // held, then RunState's own, which a language model's and a ViT's files from before it lack
  // (from_settings reads theirs).
  template <typename Fields>
  static void declare(RunState& s, Fields& f) {
    using util::Setting;
    f(s.completed_epochs, Setting("completed_epochs", "", ""));
    f(s.step_in_epoch, Setting("step_in_epoch", "", ""));
    f(s.steps_per_epoch, Setting("steps_per_epoch", "", ""));
    f(s.global_step, Setting("global_step", "", ""));
    f(s.wall_s, Setting("wall_s", "", ""));
    f(s.train_loss, Setting("train_loss", "", ""));
    f(s.epoch_loss_sum, Setting("epoch_loss_sum", "", ""));
    f(s.examples_per_s, Setting("examples_per_s", "", "").default_when_absent());
    f(s.epoch_loss_weight, Setting("epoch_loss_weight", "", "").default_when_absent());
    f(s.epoch_examples, Setting("epoch_examples", "", "").default_when_absent());
    f(s.epoch_correct, Setting("epoch_correct", "", "").default_when_absent());
    f(s.window_loss_sum, Setting("window_loss_sum", "", "").default_when_absent());
    f(s.window_loss_weight, Setting("window_loss_weight", "", "").default_when_absent());
    f(s.window_correct, Setting("window_correct", "", "").default_when_absent());
    f(s.window_examples, Setting("window_examples", "", "").default_when_absent());
  }
  util::KeyValues to_settings() const { return util::saved_settings(*this); }
  // From a checkpoint's whole settings: its "state." section, or an older file's layout.
  static RunState from_settings(const util::KeyValues& all);
};

// Adds `state` to the checkpoint's settings under "state.".
void describe_run_state(CheckpointWriter& writer, const RunState& state);

// The latest evaluation a task saved in its checkpoint's "evaluation." section under `key`
// ("val_bleu"), or, in a file from before that section, under `older_key` ("progress.val_bleu",
// "state.val_nll"); `missing` when neither holds it.
double latest_evaluation(const util::KeyValues& all, const std::string& key, const std::string& older_key,
                         double missing);

}  // namespace dls::checkpoint
