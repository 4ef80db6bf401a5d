// One flat tensor holding the gradients of all parameters, every parameter's grad() a view of
// its slice: a data-parallel step all-reduces the one tensor (one collective per step, no
// flatten/unflatten copies), and the optimizer reads the views as ordinary gradients.
//
//   flat [numel]:  | p0 (numel0) | p1 (numel1) | ... |     p_i.grad() = flat[o_i, o_i + n_i).view(p_i.sizes())
//
// The views survive as long as nothing *replaces* a grad() tensor. Two ways to fill them:
//  - steps that write into the existing grad() tensors: split_forward_backward with
//    GradientOutput::kIntoExisting (split_batch.h), or zero() then loss.backward(), which
//    accumulates in place into defined gradients. Cost against a fresh gradient tensor:
//    one pass zeroing the buffer, and backward adds into it instead of handing it over.
//  - steps that replace grad() (split_forward_backward's default kReplace, an optimizer's
//    zero_grad(set_to_none) as LibTorch 2.x does by default): adopt_gradients() afterwards
//    copies each replaced gradient into its view and puts the view back (one copy of every
//    gradient, a read and a write of 4 bytes per parameter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace dls::train {

class GradientBuffer {
 public:
  // Allocates the buffer for the parameters that require grad (all of one dtype and
  // device, else std::invalid_argument), zero-filled, in the given order, and makes every
  // such parameter's grad() its view. Whatever grad() held before is dropped.
  explicit GradientBuffer(const std::vector<torch::Tensor>& parameters);

  const torch::Tensor& flat() const { return flat_; }  // [numel()]
  std::int64_t numel() const { return flat_.numel(); }
  // The parameters that got a slice, and parameter i's view (shaped like it).
  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  const torch::Tensor& view(std::size_t i) const { return views_.at(i); }

  // Zeroes every gradient: one fill of the flat tensor; the views stay in place.
  void zero();

  // Whether every parameter's grad() is still its view.
  bool views_intact() const;

  // Brings every gradient into the buffer: a parameter whose grad() is not its view has the
  // gradient copied into the view (zeros when grad() is undefined) and the view put back as
  // grad(). Returns how many were copied: 0 after a step that wrote into the views.
  std::size_t adopt_gradients();

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> views_;
  torch::Tensor flat_;
};

}  // namespace dls::train
