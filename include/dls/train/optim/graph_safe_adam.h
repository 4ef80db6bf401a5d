// Adam and AdamW whose whole step -- gradient clipping included -- is device work on flat
// tensors, with nothing in its kernels that changes from step to step: the learning rate and
// the step count live in device scalars. A CUDA graph can therefore record one step and replay
// it for every later one (train/captured_step.h), and on a GPU the step is ~15 elementwise
// kernels over all parameters at once instead of ~10 per parameter tensor, reading and
// writing 18 N-float tensors (Adam without decay or clipping; bench/PERFORMANCE.md). With
// LibTorch >= 2.4 it is ATen's fused Adam(W) kernel with a device learning rate: 7, or 8
// with clipping (its factor applied inside the kernel, which writes the clipped gradients
// back).
//
//   gradients [N]:                   | g0 | g1 | ... |    every parameter's grad() a view
//                                                          (train/parallel/gradient_buffer.h)
//   moments m, v [N]:                | m0 | m1 | ... |    AdamParamState::exp_avg() a view
//
// The gradients come either from the grad() views (step(), update_on_device()) or as backward
// computed them (update_on_device(gradients): the captured step's, no pass zeroing the views
// and no addition of each gradient into its view; the elementwise path copies them into the
// flat tensor in one pass, ATen's fused kernel reads them where they are).
//
// The state stays LibTorch's (AdamParamState / AdamWParamState: step, exp_avg, exp_avg_sq)
// with its moments as views of the flat ones, so checkpoints written by it and by
// torch::optim::Adam / AdamW (or FusedAdam) load in each other. The same update as
// torch::optim::Adam / AdamW followed by clip_grad_norm_ before it, up to float32 rounding
// (GraphSafeAdam.*EqualsLibTorchs*).
#pragma once

#include <vector>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/input-archive.h>

namespace dls::train {

// What a step needs from outside a capture, and the capturable rest.
class GraphSafeOptimizer {
 public:
  virtual ~GraphSafeOptimizer() = default;
  // Host, before each step: the learning rate into its device scalar; the state bound to the
  // flat moments the first time (and after a load).
  virtual void prepare() = 0;
  // Device only: clipping, moments, parameters -- what a CUDA graph records -- from every
  // parameter's grad() (the flat gradients' views).
  virtual void update_on_device() = 0;
  // The same from `gradients`, one per parameter in order, as torch::autograd::grad returns
  // them (undefined: backward did not reach the parameter, a gradient of zeros).
  virtual void update_on_device(const std::vector<torch::Tensor>& gradients) = 0;
  // Host, after each step: every parameter's step counter (what a checkpoint saves) + 1.
  virtual void count_step() = 0;
};

// Base: torch::optim::Adam (L2 weight decay added to the gradient) or torch::optim::AdamW
// (decoupled weight decay); Options: its options type.
template <typename Base, typename Options>
class GraphSafeAdamOf : public Base, public GraphSafeOptimizer {
 public:
  // `flat_gradients` [N] float32: the tensor whose consecutive slices, in the order of
  // `params`, are their grad() (a GradientBuffer's flat(); checked). clip_norm > 0: the global
  // gradient norm is clipped to it first, as torch::nn::utils::clip_grad_norm_ does. One
  // parameter group.
  GraphSafeAdamOf(std::vector<torch::Tensor> params, Options options, torch::Tensor flat_gradients, double clip_norm);

  void prepare() override;
  void update_on_device() override;
  void update_on_device(const std::vector<torch::Tensor>& gradients) override;
  void count_step() override;
  // prepare(), update_on_device(), count_step().
  torch::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr) override;
  // Loaded by the saved keys as strings (adam_archive.h: either LibTorch's files), then the
  // loaded moments are copied into the flat ones at the next step.
  void load(torch::serialize::InputArchive& archive) override;

 private:
  // The state's moments into the flat ones (fresh state: zeros, step 0) and back as views.
  void bind_state();
  // The buffers (and their views) of the elementwise update, which ATen's fused kernel needs not.
  void make_update_buffers();
  // The update from `gradients`: the flat ones' views (`in_flat`), or tensors of their own.
  void update(const std::vector<torch::Tensor>& gradients, bool in_flat);

  torch::Tensor gradients_;  // [N]
  double clip_norm_;
  bool bound_ = false;
  bool aten_fused_ = false;             // the step is ATen's fused kernel (LibTorch >= 2.4)
  bool aten_fused_refused_ = false;     // it threw once: the elementwise operators from then on
  torch::Tensor exp_avg_, exp_avg_sq_;  // [N] float32
  torch::Tensor denominator_;           // [N] float32, each step's
  torch::Tensor decayed_;               // [N] float32: AdamW's -lr * decay * p
  // Per parameter, made once: its slices of exp_avg_, exp_avg_sq_, denominator_ and decayed_,
  // its gradient (a slice of gradients_), and the parameter flattened -- no view operators
  // per step.
  std::vector<torch::Tensor> moments_, second_moments_, denominators_, decrements_, gradient_views_, flat_parameters_;
  torch::Tensor step_;                                      // float64 scalar: steps taken
  torch::Tensor lr_;                                        // float64 scalar: this step's learning rate
  std::vector<torch::optim::OptimizerParamState*> states_;  // parameter i's, for count_step
};

using GraphSafeAdam = GraphSafeAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
using GraphSafeAdamW = GraphSafeAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;

}  // namespace dls::train
