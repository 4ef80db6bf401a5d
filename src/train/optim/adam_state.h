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

}  // namespace dls::train
