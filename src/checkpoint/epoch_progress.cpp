#include "dls/checkpoint/epoch_progress.h"

namespace dls::checkpoint {

double EpochProgress::epochs_done() const {
  if (steps_per_epoch <= 0) return static_cast<double>(completed_epochs);
  return static_cast<double>(completed_epochs) +
         static_cast<double>(step_in_epoch) / static_cast<double>(steps_per_epoch);
}

void EpochProgress::write_progress(util::KeyValues& s) const {
  s.set("completed_epochs", completed_epochs);
  s.set("step_in_epoch", step_in_epoch);
  s.set("steps_per_epoch", steps_per_epoch);
  s.set("global_step", global_step);
  s.set("wall_s", wall_s);
  s.set("train_loss", train_loss);
  s.set("epoch_loss_sum", epoch_loss_sum);
}

void EpochProgress::read_progress(const util::KeyValues& s) {
  completed_epochs = s.get_int("completed_epochs");
  step_in_epoch = s.get_int("step_in_epoch");
  steps_per_epoch = s.get_int("steps_per_epoch");
  global_step = s.get_int("global_step");
  wall_s = s.get_double("wall_s");
  train_loss = s.get_double("train_loss");
  epoch_loss_sum = s.get_double("epoch_loss_sum");
}

}  // namespace dls::checkpoint
