// Small pieces both trainers need (private to src/train).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/models/memory_estimate.h"
#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"

namespace dls::train {

using TrainClock = std::chrono::steady_clock;

double seconds_since(TrainClock::time_point t);

// printf-formatted number for CSV fields and progress lines; "" when not finite.
std::string number_text(double value, const char* format = "%.6g");

// numerator / denominator; NaN when nothing was counted (denominator <= 0).
double ratio(double numerator, double denominator);

// A resume's epochs must be cut into the steps its checkpoint was (`resumed_steps` of
// `resumed_batch`); throws one line naming both batch sizes and the way on when this data and
// `batch` give `steps` instead.
void check_resumed_steps_per_epoch(const std::string& resumed_path, std::int64_t resumed_steps,
                                   std::int64_t resumed_batch, std::int64_t batch, std::int64_t steps);

// Whether `task`'s metrics have a training "accuracy" column: then the loop counts the correct
// predictions of every step (TrainingTask::correct_predictions).
bool reports_accuracy(const TrainingTask& task);

// Adam's state tensors are read onto the CPU; a CUDA run needs them beside the weights
// (and checkpoints are written from CPU tensors so that any machine can read them).
void move_optimizer_state(torch::optim::Optimizer& optimizer, const torch::Device& device);

// While it lives, the optimizer's Adam state tensors are CPU copies (what a checkpoint is
// written from); then the very tensors it held go back. Moving the state there and back
// instead would leave the graph-safe optimizer's moments, views of its flat ones, detached.
class OptimizerStateOnCpu {
 public:
  explicit OptimizerStateOnCpu(torch::optim::Optimizer& optimizer);
  ~OptimizerStateOnCpu();
  OptimizerStateOnCpu(const OptimizerStateOnCpu&) = delete;
  OptimizerStateOnCpu& operator=(const OptimizerStateOnCpu&) = delete;

 private:
  struct Held {
    torch::optim::OptimizerParamState* state;
    torch::Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
  };
  std::vector<Held> held_;
};

// Before the model is built: refuses (std::runtime_error, one line with both numbers and
// `advice`, the flags that make it smaller) a training whose estimate is over the memory
// available. On the CPU all of it counts; on another device the weights alone, which are
// built on the host before they move.
void check_training_memory(const TrainingMemory& memory, std::int64_t batch_size, const torch::Device& device,
                           const std::string& advice);

}  // namespace dls::train
