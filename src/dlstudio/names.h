// What import and export of DLStudio's state dicts share: moving tensors between a module of
// this project and a state dict under a name mapping, with one-line errors.
#pragma once

#include <functional>
#include <string>

#include <torch/nn/module.h>

#include "dls/dlstudio/state_dict_file.h"

namespace dls::dlstudio {

// This project's parameter name -> DLStudio's key in one file; "" when DLStudio's class has
// no such parameter (it is zero on import and must be left out on export).
using NameMap = std::function<std::string(const std::string& name)>;
std::string same_name(const std::string& name);

// "[512, 256]"
std::string shape_text(const torch::Tensor& tensor);

// Copies state[map(name)] into every parameter of `module` and zeroes those mapped to "".
// Throws std::runtime_error "<file>: ..." naming the first parameter whose key is missing or
// whose shape differs (both shapes), then the first key of `state` that nothing read.
void load_parameters(torch::nn::Module& module, const StateDict& state, const NameMap& map, const std::string& file);

// The parameters of `module` under their DLStudio keys (those mapped to "" left out).
StateDict dlstudio_state(const torch::nn::Module& module, const NameMap& map);

// Number of distinct N in keys "<prefix>N.<rest>" (ModuleList length).
std::int64_t count_indices(const StateDict& state, const std::string& prefix);

// state[key]; throws "<file>: no key '<key>'".
const torch::Tensor& tensor_at(const StateDict& state, const std::string& key, const std::string& file);

}  // namespace dls::dlstudio
