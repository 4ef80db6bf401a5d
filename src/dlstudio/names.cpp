#include "dlstudio/names.h"

#include <map>
#include <set>
#include <stdexcept>

#include <torch/torch.h>

#include "dls/layers/saved_tensors.h"

namespace dls::dlstudio {

std::string same_name(const std::string& name) { return name; }

std::string shape_text(const torch::Tensor& tensor) {
  std::string text = "[";
  for (std::int64_t d = 0; d < tensor.dim(); ++d) text += (d > 0 ? ", " : "") + std::to_string(tensor.size(d));
  return text + "]";
}

void load_parameters(torch::nn::Module& module, const StateDict& state, const NameMap& map, const std::string& file) {
  std::map<std::string, torch::Tensor> by_key(state.begin(), state.end());
  std::set<std::string> used;
  torch::NoGradGuard no_grad;
  for (auto& [name, parameter] : saved_parameters(module)) {
    const std::string key = map(name);
    if (key.empty()) {
      parameter.zero_();
      continue;
    }
    const auto found = by_key.find(key);
    if (found == by_key.end()) {
      throw std::runtime_error(file + ": missing key '" + key + "' (" + shape_text(parameter) + ")");
    }
    if (!found->second.sizes().equals(parameter.sizes())) {
      throw std::runtime_error(file + ": '" + key + "' has shape " + shape_text(found->second) +
                               ", the model read from the other keys needs " + shape_text(parameter));
    }
    parameter.copy_(found->second);
    used.insert(key);
  }
  for (const auto& [key, tensor] : state) {
    if (!used.count(key)) throw std::runtime_error(file + ": unexpected key '" + key + "' " + shape_text(tensor));
  }
}

StateDict dlstudio_state(const torch::nn::Module& module, const NameMap& map) {
  StateDict state;
  for (const auto& [name, parameter] : saved_parameters(module)) {
    const std::string key = map(name);
    if (!key.empty()) state.emplace_back(key, parameter.detach());
  }
  return state;
}

std::int64_t count_indices(const StateDict& state, const std::string& prefix) {
  std::set<std::string> indices;
  for (const auto& [key, tensor] : state) {
    if (key.rfind(prefix, 0) == 0)
      indices.insert(key.substr(prefix.size(), key.find('.', prefix.size()) - prefix.size()));
  }
  return static_cast<std::int64_t>(indices.size());
}

const torch::Tensor& tensor_at(const StateDict& state, const std::string& key, const std::string& file) {
  for (const auto& [name, tensor] : state) {
    if (name == key) return tensor;
  }
  throw std::runtime_error(file + ": no key '" + key + "'");
}

}  // namespace dls::dlstudio
