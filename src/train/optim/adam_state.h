// What the Adam variants (fused_adam.cpp, graph_safe_adam.cpp) share about LibTorch's
// optimizer state (private to src/train/optim).
#pragma once

#include <sstream>
#include <string>
#include <type_traits>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/types.h>

namespace dls::train {

// The key of a parameter's state: a string in LibTorch 1.x, the TensorImpl pointer in 2.x.
template <typename Map>
typename Map::key_type state_key(const Map&, const torch::Tensor& p) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
    std::ostringstream key;  // what LibTorch 1.x writes: c10::guts::to_string of the pointer
    key << p.unsafeGetTensorImpl();
    return key.str();
  } else {
    return p.unsafeGetTensorImpl();
  }
}

// The state's own type: LibTorch's AdamW saves, loads and steps AdamWParamState (a sibling of
// AdamParamState, not a base), so the other type would be undefined behaviour there.
template <typename Base>
using AdamStateOf = std::conditional_t<std::is_same_v<Base, torch::optim::AdamW>, torch::optim::AdamWParamState,
                                       torch::optim::AdamParamState>;

// And its options' type (what its param groups hold and its files save).
template <typename Base>
using AdamOptionsOf = std::conditional_t<std::is_same_v<Base, torch::optim::AdamW>, torch::optim::AdamWOptions,
                                         torch::optim::AdamOptions>;

// Adam's and AdamW's state types are siblings: the same three tensors under either.
template <typename State, typename Fn>
bool with_adam_state(torch::optim::OptimizerParamState* state, Fn&& fn) {
  auto* adam = dynamic_cast<State*>(state);
  if (adam != nullptr) fn(*adam);
  return adam != nullptr;
}

// Calls fn(state) with the state as the Adam or AdamW state it is (neither: not at all).
template <typename Fn>
void for_adam_state(torch::optim::OptimizerParamState* state, Fn&& fn) {
  with_adam_state<torch::optim::AdamParamState>(state, fn) || with_adam_state<torch::optim::AdamWParamState>(state, fn);
}

}  // namespace dls::train
