#include "dls/layers/saved_tensors.h"

#include <functional>
#include <unordered_map>

#include "attention_core.h"
#include "dls/layers/attention.h"

namespace dls {

namespace {

std::string joined(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// An attention layer's heads over `value_of` (the tensor standing for each of its fused
// parameters): how many, and head h's part `part`. No heads for any other module.
struct AttentionHeads {
  std::int64_t count = 0;
  std::function<HeadProjection(std::int64_t h, Projection part)> part_of;
};

AttentionHeads attention_heads(const torch::nn::Module& module,
                               const std::function<torch::Tensor(const torch::Tensor&)>& value_of) {
  if (const auto* self = dynamic_cast<const SelfAttentionImpl*>(&module)) {
    const auto weight = value_of(self->qkv_weight), bias = value_of(self->qkv_bias);
    return {weight.size(0), [weight, bias](std::int64_t h, Projection part) {
              return detail::self_attention_part(weight, bias, h, part);
            }};
  }
  if (const auto* cross = dynamic_cast<const CrossAttentionImpl*>(&module)) {
    const auto q_weight = value_of(cross->q_weight), q_bias = value_of(cross->q_bias);
    const auto kv_weight = value_of(cross->kv_weight), kv_bias = value_of(cross->kv_bias);
    return {q_weight.size(0), [=](std::int64_t h, Projection part) {
              return detail::cross_attention_part(q_weight, q_bias, kv_weight, kv_bias, h, part);
            }};
  }
  return {};
}

// DLStudio's per-head entries of an attention layer at `path`, in Module::save's order:
// "attention_heads_arr." then for each head its module, WQ, WK, WV (module, weight, bias)
// and attention_dropout. Submodule entries (undefined tensors) only when `modules`.
void add_heads(const std::string& path, const AttentionHeads& heads, bool modules, NamedTensors& out) {
  const std::string array = joined(path, "attention_heads_arr");
  if (modules) out.emplace_back(array + ".", torch::Tensor());
  for (std::int64_t h = 0; h < heads.count; ++h) {
    const std::string head = array + "." + std::to_string(h);
    if (modules) out.emplace_back(head + ".", torch::Tensor());
    for (const auto part : {Projection::kQ, Projection::kK, Projection::kV}) {
      const char* names[] = {"WQ", "WK", "WV"};
      const std::string linear = head + "." + names[static_cast<int>(part)];
      const auto projection = heads.part_of(h, part);
      if (modules) out.emplace_back(linear + ".", torch::Tensor());
      out.emplace_back(linear + ".weight", projection.weight);
      out.emplace_back(linear + ".bias", projection.bias);
    }
    if (modules) out.emplace_back(head + ".attention_dropout.", torch::Tensor());
  }
}

// The walk behind both functions: every module in pre-order, its own entry (when `modules`),
// its parameters through `value_of` (an attention layer's as DLStudio's heads), its buffers
// (when `buffers`).
NamedTensors walk(const torch::nn::Module& module, const std::function<torch::Tensor(const torch::Tensor&)>& value_of,
                  bool modules, bool buffers) {
  NamedTensors out;
  for (const auto& item : module.named_modules("", /*include_self=*/true)) {
    const std::string& path = item.key();
    const auto& current = *item.value();
    if (modules && !path.empty()) out.emplace_back(path + ".", torch::Tensor());
    if (const auto heads = attention_heads(current, value_of); heads.part_of) {
      add_heads(path, heads, modules, out);
    } else {
      for (const auto& p : current.named_parameters(/*recurse=*/false)) {
        out.emplace_back(joined(path, p.key()), value_of(p.value()));
      }
    }
    if (buffers) {
      for (const auto& b : current.named_buffers(/*recurse=*/false)) out.emplace_back(joined(path, b.key()), b.value());
    }
  }
  return out;
}

}  // namespace

NamedTensors saved_parameters(const torch::nn::Module& module) {
  return walk(
      module, [](const torch::Tensor& p) { return p; }, false, false);
}

NamedTensors saved_parameters(const torch::nn::Module& module, const std::vector<torch::Tensor>& values) {
  const auto parameters = module.parameters();
  TORCH_CHECK(values.size() == parameters.size(), "saved_parameters: ", values.size(), " tensors for ",
              parameters.size(), " parameters");
  std::unordered_map<const void*, std::size_t> index;
  for (std::size_t i = 0; i < parameters.size(); ++i) index.emplace(parameters[i].unsafeGetTensorImpl(), i);
  return walk(
      module, [&](const torch::Tensor& p) { return values.at(index.at(p.unsafeGetTensorImpl())); }, false, false);
}

NamedTensors saved_tensors(const torch::nn::Module& module) {
  return walk(
      module, [](const torch::Tensor& p) { return p; }, true, true);
}

}  // namespace dls
