// A model's tensors under the names checkpoints keep them by: DLStudio's. The attention
// layers hold their heads' WQ/WK/WV fused (attention.h); a checkpoint holds them per head,
// as "…self_attention_layer.attention_heads_arr.2.WK.weight", with DLStudio's per-head
// submodules ("…attention_heads_arr.2.", "…2.WK.", "…2.attention_dropout."), exactly as
// when each head was a module of its own. So files written before the fusion load, files
// written now read in earlier versions and in DLStudio's Python, and averaging, export and
// fine-tuning work by DLStudio's names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

namespace dls {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// The parameters of `module` by their saved names, in the order of
// Module::named_parameters() with each head's WQ, WK, WV weight and bias in DLStudio's order
// (head by head). Each tensor is a view of its parameter: writing into it (under
// torch::NoGradGuard) loads the module.
NamedTensors saved_parameters(const torch::nn::Module& module);

// The same names and order over tensors shaped as the module's parameters and given in
// Module::parameters()' order (a moving average, an optimizer's moments): views of them.
NamedTensors saved_parameters(const torch::nn::Module& module, const std::vector<torch::Tensor>& values);

// Everything a checkpoint's module section holds, in Module::save's order: each submodule
// as its name with a trailing dot and an undefined tensor ("decoder.0.dropout.", so that
// one without tensors is written too), the parameters as saved_parameters() names them,
// and the buffers.
NamedTensors saved_tensors(const torch::nn::Module& module);

}  // namespace dls
