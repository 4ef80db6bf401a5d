#include "dls/train/step_plan.h"

#include <stdexcept>

namespace dls::train {

CudaGraphs parse_cuda_graphs(const std::string& name) {
  if (name == "auto") return CudaGraphs::kAuto;
  if (name == "on") return CudaGraphs::kOn;
  if (name == "off") return CudaGraphs::kOff;
  throw std::invalid_argument("--cuda-graphs: unknown value '" + name + "' (auto, on or off)");
}

StepPlan plan_step(CudaGraphs wanted, const torch::Device& device, bool graphs_built, int world_size,
                   util::Precision precision, int accum_steps, bool loss_capturable) {
  StepPlan plan;
  plan.graph_safe_optimizer = device.is_cuda();
  // What a replay cannot do, first match wins.
  if (wanted == CudaGraphs::kOff) {
    plan.why_not = "--cuda-graphs off";
  } else if (!device.is_cuda()) {
    plan.why_not = "the device is " + device.str() + ", not CUDA";
  } else if (!graphs_built) {
    plan.why_not = "this build has no CUDA graphs (LibTorch with CUDA, DLS_CUDA_GRAPHS=ON)";
  } else if (world_size > 1) {
    plan.why_not = "data-parallel steps all-reduce on the host's schedule";
  } else if (precision == util::Precision::kFp16) {
    plan.why_not = "fp16 loss scaling checks the gradients on the host every step";
  } else if (accum_steps > 1) {
    plan.why_not = "--accum-steps runs several micro-batches per step";
  } else if (!loss_capturable) {
    plan.why_not = "the task's loss cannot be recorded (a seq2seq transformer's can, without --max-tokens)";
  }
  plan.captured = plan.why_not.empty();
  if (wanted == CudaGraphs::kOn && !plan.captured) {
    throw std::invalid_argument("--cuda-graphs on: the step cannot be captured: " + plan.why_not);
  }
  return plan;
}

std::string step_description(const StepPlan& plan, const torch::Device& device, const std::string& recording_failure) {
  if (!recording_failure.empty()) return "eager (recording failed: " + recording_failure + ")";
  if (plan.captured) return "CUDA graphs";
  return device.is_cpu() ? "eager" : "eager (" + plan.why_not + ")";
}

}  // namespace dls::train
