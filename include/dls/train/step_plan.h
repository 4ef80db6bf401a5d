// How the training step runs, decided in one place from the device and the run, so that
// CPU tests can pin it with torch::Device values (StepPlan.*): LibTorch's optimizer or the
// graph-safe one (optim/graph_safe_adam.h), and eager or recorded as CUDA graphs
// (captured_step.h, --cuda-graphs).
#pragma once

#include <string>

#include <torch/types.h>

#include "dls/util/precision.h"

namespace dls::train {

enum class CudaGraphs { kAuto, kOn, kOff };

// "auto", "on", "off"; throws std::invalid_argument otherwise.
CudaGraphs parse_cuda_graphs(const std::string& name);

struct StepPlan {
  // Adam/AdamW as a few kernels over flat gradients (GraphSafeAdam): on CUDA, where LibTorch's
  // optimizer launches ~10 kernels per parameter tensor; FusedAdam's threads on the CPU.
  bool graph_safe_optimizer = false;
  // The whole step replayed as CUDA graphs (needs static-shape batches).
  bool captured = false;
  std::string why_not;  // not captured: why ("" when captured)
};

// `graphs_built`: this build records CUDA graphs and a GPU is visible (DeviceGraph::available);
// `loss_capturable`: the task's loss can be recorded (TrainingTask::capturable_loss). kAuto
// captures whenever everything allows it; kOn throws std::invalid_argument naming what does
// not allow it; kOff never captures.
StepPlan plan_step(CudaGraphs wanted, const torch::Device& device, bool graphs_built, int world_size,
                   util::Precision precision, int accum_steps, bool loss_capturable);

// How the steps ran, for the start-up line, the summary and --json: "CUDA graphs"; "eager
// (recording failed: WHY)" when `recording_failure` says why a recording failed and the run
// went on eagerly (--cuda-graphs auto: a slower run must say so wherever it is read); "eager
// (WHY)" on a GPU the plan kept eager; "eager" on a CPU.
std::string step_description(const StepPlan& plan, const torch::Device& device, const std::string& recording_failure);

}  // namespace dls::train
