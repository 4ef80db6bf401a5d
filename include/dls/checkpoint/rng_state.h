// The state of LibTorch's CPU random generator (dropout, initialisation), saved in
// checkpoints so that a resumed run draws the same numbers as an uninterrupted one.
// Data order and augmentation come from seeds (util/random.h) and need no state.
#pragma once

#include <torch/types.h>

namespace dls::checkpoint {

torch::Tensor cpu_generator_state();
void restore_cpu_generator_state(const torch::Tensor& state);

}  // namespace dls::checkpoint
