#include "train/training_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

#include "dls/util/memory_check.h"
#include "train/optim/adam_state.h"

namespace dls::train {

double seconds_since(TrainClock::time_point t) { return std::chrono::duration<double>(TrainClock::now() - t).count(); }

std::string number_text(double value, const char* format) {
  if (!std::isfinite(value)) return "";
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

double ratio(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : NAN; }

void check_resumed_steps_per_epoch(const std::string& resumed_path, std::int64_t resumed_steps,
                                   std::int64_t resumed_batch, std::int64_t batch, std::int64_t steps) {
  if (resumed_steps == steps) return;
  throw std::runtime_error(resumed_path + ": the checkpoint's epochs had " + std::to_string(resumed_steps) +
                           " steps of --batch-size " + std::to_string(resumed_batch) + ", this data and --batch-size " +
                           std::to_string(batch) + " give " + std::to_string(steps) +
                           ": resume with the run's batch size (or start a new run from it: --init-from)");
}

bool reports_accuracy(const TrainingTask& task) {
  const auto& header = task.metrics_header();
  return std::find(header.begin(), header.end(), "accuracy") != header.end();
}

namespace {

// The moments of one parameter's state onto `device`.
template <typename State>
void move_moments(State& s, const torch::Device& device) {
  s.exp_avg(s.exp_avg().to(device));
  s.exp_avg_sq(s.exp_avg_sq().to(device));
  if (s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(s.max_exp_avg_sq().to(device));
}

}  // namespace

void move_optimizer_state(torch::optim::Optimizer& optimizer, const torch::Device& device) {
  for (auto& entry : optimizer.state()) {
    for_adam_state(entry.second.get(), [&](auto& s) { move_moments(s, device); });
  }
}

OptimizerStateOnCpu::OptimizerStateOnCpu(torch::optim::Optimizer& optimizer) {
  for (auto& entry : optimizer.state()) {
    for_adam_state(entry.second.get(), [&](auto& s) {
      held_.push_back({entry.second.get(), s.exp_avg(), s.exp_avg_sq(), s.max_exp_avg_sq()});
      move_moments(s, torch::kCPU);
    });
  }
}

OptimizerStateOnCpu::~OptimizerStateOnCpu() {
  for (auto& held : held_) {
    for_adam_state(held.state, [&](auto& s) {
      s.exp_avg(held.exp_avg);
      s.exp_avg_sq(held.exp_avg_sq);
      if (held.max_exp_avg_sq.defined()) s.max_exp_avg_sq(held.max_exp_avg_sq);
    });
  }
}

void check_training_memory(const TrainingMemory& memory, std::int64_t batch_size, const torch::Device& device,
                           const std::string& advice) {
  if (device.is_cpu()) {
    util::check_fits_in_memory(memory.total_bytes(), describe_training_memory(memory, batch_size), advice);
    return;
  }
  util::check_fits_in_memory(4.0 * static_cast<double>(memory.parameters),
                             "the model's weights (" + number_text(static_cast<double>(memory.parameters), "%.3g") +
                                 " parameters, built on the host before they move to " + device.str() + ")",
                             advice);
}

}  // namespace dls::train
