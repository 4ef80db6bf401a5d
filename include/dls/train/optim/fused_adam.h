// Adam and AdamW with the whole update of a parameter in one pass over its memory.
//
// LibTorch's Adam::step updates each tensor with seven separate operators (two for each
// moment, sqrt, division, addcdiv) and two temporaries the size of the parameter. For the
// dlstudio seq2seq config (282 M parameters) that is ~20 passes over 1.1 GB tensors and
// 2.2 GB of fresh pages per step. The fused step reads p, g, m, v once and writes p, m, v
// once, split across threads.
//
// Same state (AdamParamState: step, exp_avg, exp_avg_sq), same serialisation and same
// options as torch::optim::Adam / AdamW, so checkpoints written with either load in the
// other. Parameters that are not contiguous float32 CPU tensors (CUDA, double), AMSGrad
// and sparse gradients take LibTorch's own step.
//
// With a clip norm it also clips, as clip_grad_norm_ (norm type 2) before the step would:
// one threaded pass reads every gradient for the global norm, and the update multiplies each
// gradient by min(1, clip / (norm + 1e-6)) as it reads it. clip_grad_norm_ dispatches a norm
// and a multiplication per gradient (200 operators a step for the cpu preset's 100 tensors)
// and writes every gradient once more; here the gradients are left as backward wrote them.
#pragma once

#include <vector>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>

namespace dls::train {

// LibTorch's Adam or AdamW (Base, with its Options type) that clips the global gradient norm
// to clip_norm before each step when clip_norm > 0, as clip_grad_norm_ (norm type 2) would:
// make_optimizer's plain optimizer, and the fused one's step for what it cannot fuse.
template <typename Base, typename Options>
class ClippingAdamOf : public Base {
 public:
  ClippingAdamOf(std::vector<torch::Tensor> params, Options options, double clip_norm)
      : Base(std::move(params), std::move(options)), clip_norm_(clip_norm) {}
  torch::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr) override;
  // As LibTorch's load, but by the saved keys as strings: a checkpoint of either LibTorch
  // loads on either (src/train/optim/adam_archive.h).
  void load(torch::serialize::InputArchive& archive) override;

 protected:
  double clip_norm_;
};

// Base: torch::optim::Adam (L2 weight decay added to the gradient) or torch::optim::AdamW
// (decoupled weight decay); Options: its options type.
template <typename Base, typename Options>
class FusedAdamOf : public ClippingAdamOf<Base, Options> {
 public:
  // threads: how many threads share the update (the intra-op count when it is built);
  // clip_norm > 0: the global gradient norm is clipped to it before each update.
  FusedAdamOf(std::vector<torch::Tensor> params, Options options, int threads, double clip_norm = 0)
      : ClippingAdamOf<Base, Options>(std::move(params), std::move(options), clip_norm), threads_(threads) {}
  torch::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr) override;

 private:
  int threads_;
};

using FusedAdam = FusedAdamOf<torch::optim::Adam, torch::optim::AdamOptions>;
using FusedAdamW = FusedAdamOf<torch::optim::AdamW, torch::optim::AdamWOptions>;

}  // namespace dls::train
