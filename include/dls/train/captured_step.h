// The training step of fixed-shape batches recorded once per batch shape and replayed:
// forward, loss, backward, clipping and the optimizer step as one CUDA graph
// launch (device_graph.h). Per step the host only copies the batch into the graph's input
// tensors, the loss denominator and the learning rate into device scalars, and launches:
// on a small model the eager step's thousands of kernel launches and their host work are
// what bounds a GPU (docs/gpu.md). Needs what a replay cannot change: one process, fixed
// shapes (static-shape batches: a handful of widths), a loss made of device work alone
// (TrainingTask::capturable_loss), a graph-safe optimizer, no fp16 loss scaling.
//
// record = false runs the same program eagerly on the same tensors every step: the CPU's
// way, and the reference a replay must equal (CapturedStep.*).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "dls/train/training_task.h"
#include "dls/util/precision.h"

namespace dls::train {

class DeviceGraph;
class GraphSafeOptimizer;

class CapturedStep {
 public:
  // `parameters`: those trained, in the order `optimizer` holds them; backward's gradients of
  // them go to optimizer.update_on_device as they are (grad() is left alone). `loss_sum`: the
  // batch's loss summed over what it counts; the step's loss is that sum divided by the
  // denominator run() is given. Forward and loss under `autocast`.
  CapturedStep(const torch::Device& device, std::vector<torch::Tensor> parameters, GraphSafeOptimizer& optimizer,
               LossSumFn loss_sum, util::AutocastState autocast, bool record);
  ~CapturedStep();

  // One optimizer step on a batch (inputs and targets on the device) whose loss is
  // loss_sum / denominator. Returns the loss as a float64 scalar on the device, not read.
  // The first batch of each shape records its graph (throws std::runtime_error when that
  // fails, naming why, before any weight changed).
  torch::Tensor run(const torch::Tensor& inputs, const torch::Tensor& targets, double denominator);

  // The batch shapes recorded so far (each one graph).
  std::size_t graphs() const { return programs_.size(); }

 private:
  // One batch shape's tensors: what the recorded kernels read.
  struct Program {
    torch::Tensor inputs, targets;  // copies of the batch's
    torch::Tensor denominator;      // float32 scalar
    std::unique_ptr<DeviceGraph> graph;
  };

  struct LossAndGradients {
    torch::Tensor loss;                    // float32 scalar
    std::vector<torch::Tensor> gradients;  // one per parameter (undefined where backward did not reach)
  };
  LossAndGradients forward_backward(Program& program);
  void body(Program& program);  // forward_backward, then the update

  torch::Device device_;
  std::vector<torch::Tensor> parameters_;
  GraphSafeOptimizer& optimizer_;
  LossSumFn loss_sum_;
  util::AutocastState autocast_;
  bool record_;
  torch::Tensor loss_;  // float64 scalar: the last step's loss, written by every program
  std::map<std::vector<std::int64_t>, Program> programs_;  // by [input sizes..., -1, target sizes...]
  // The first graph recorded, whose memory pool the others share: they keep no tensor of
  // theirs alive and run one at a time on one stream, so one pool the size of the largest
  // step serves them all.
  const DeviceGraph* first_graph_ = nullptr;
};

}  // namespace dls::train
