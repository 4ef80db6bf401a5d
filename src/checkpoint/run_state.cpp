#include "dls/checkpoint/run_state.h"

#include "dls/checkpoint/checkpoint.h"

namespace dls::checkpoint {

namespace {

// The keys a language model's and a ViT's checkpoints had of their own before RunState, over
// the keys they shared with it in `state`: a language model counted its epoch's mean over
// steps ("epoch_steps") and sentences, a ViT over images.
RunState with_kind_keys(RunState state, const util::KeyValues& s) {
  if (s.has("epoch_steps")) {  // a language model's
    state.examples_per_s = s.get_double("sentences_per_s");
    state.epoch_loss_weight = static_cast<double>(s.get_int("epoch_steps"));
    state.epoch_examples = s.get_int("epoch_sentences");
  } else {  // a ViT's: Σ batch loss × batch images
    state.examples_per_s = s.get_double("images_per_s");
    state.epoch_loss_weight = static_cast<double>(s.get_int("epoch_seen"));
    state.epoch_examples = s.get_int("epoch_seen");
    state.epoch_correct = s.get_int("epoch_correct");
  }
  return state;
}

// A seq2seq checkpoint's "progress." before RunState: epochs 1-based (step_in_epoch batches of
// `epoch` done), the epoch's mean loss saved but not its sums, which a resume restarts from the
// mean over its steps; its examples are left to the task to count (-1).
RunState from_seq2seq_progress(const util::KeyValues& p) {
  RunState state;
  state.completed_epochs = p.get_int("epoch") - 1;
  state.step_in_epoch = p.get_int("step_in_epoch");
  state.global_step = p.get_int("global_step");
  state.wall_s = p.get_double("wall_s");
  state.train_loss = p.get_double("train_loss");
  state.epoch_loss_weight = static_cast<double>(state.step_in_epoch);
  state.epoch_loss_sum =
      state.step_in_epoch > 0 && std::isfinite(state.train_loss) ? state.train_loss * state.epoch_loss_weight : 0.0;
  state.epoch_examples = state.step_in_epoch > 0 ? -1 : 0;
  return state;
}

}  // namespace

double RunState::epochs_done() const {
  if (steps_per_epoch <= 0) return static_cast<double>(completed_epochs);
  return static_cast<double>(completed_epochs) +
         static_cast<double>(step_in_epoch) / static_cast<double>(steps_per_epoch);
}

RunState RunState::from_settings(const util::KeyValues& all) {
  if (!all.has("state.completed_epochs")) return from_seq2seq_progress(all.section("progress"));
  const auto s = all.section("state");
  RunState state;
  util::read_saved_settings(s, state);
  return s.has("epoch_loss_weight") ? state : with_kind_keys(state, s);
}

void describe_run_state(CheckpointWriter& writer, const RunState& state) {
  writer.add_settings(state.to_settings(), "state");
}

double latest_evaluation(const util::KeyValues& all, const std::string& key, const std::string& older_key,
                         double missing) {
  if (all.has("evaluation." + key)) return all.get_double("evaluation." + key);
  return all.has(older_key) ? all.get_double(older_key) : missing;
}

}  // namespace dls::checkpoint
