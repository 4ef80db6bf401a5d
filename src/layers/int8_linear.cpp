#include "dls/layers/int8_linear.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <ATen/Context.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

namespace dls {

namespace {

std::atomic<bool> g_int8_linear{false};

bool has_onednn_engine() {
  const auto& engines = at::globalContext().supportedQEngines();
  return std::find(engines.begin(), engines.end(), at::QEngine::ONEDNN) != engines.end();
}

const c10::OperatorHandle& linear_prepack_op() {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_prepack", "");
  return op;
}

const c10::OperatorHandle& linear_dynamic_op() {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_dynamic", "");
  return op;
}

// Where a weight lives and how it is viewed: an attention layer's fused weights are reshaped
// views made anew each step over the parameter's storage.
using WeightKey = std::tuple<const void*, std::int64_t, std::vector<std::int64_t>, std::vector<std::int64_t>>;

struct CachedInt8Weight {
  // Held weakly: keeps the storage's address from being reused by another weight while
  // this entry exists, without keeping its memory.
  c10::weak_intrusive_ptr<c10::StorageImpl> storage;
  std::int64_t version = 0;
  std::shared_ptr<const Int8Weight> weight;
};

std::mutex g_cache_mutex;
std::map<WeightKey, CachedInt8Weight> g_cache;

// onednn (in LibTorch 1.13) makes and caches a kernel per input shape and per input scale,
// at 1-7 ms for a new shape and ~35 us for a new scale on the development VM, against
// 0.02-2 ms for the product itself; and the dynamic path takes the scale from the input's
// range, new with every call. So the input goes in padded with zero rows to a few row counts
// (8, multiples of 16 to 256, then of 64), and one of those rows holds +R and -R, R the
// input's largest magnitude rounded up to a power of 2^(1/4): its range, and with it the
// kernel, then takes few values (a 256 x 256 layer on 8 rows, standalone: 58 us a call with
// every input new, 24 us with a range seen before), for activations quantized at most 19 %
// more coarsely than their own range would.
std::int64_t padded_rows(std::int64_t rows_and_range) {
  if (rows_and_range <= 8) return 8;
  const std::int64_t step = rows_and_range <= 256 ? 16 : 64;
  return (rows_and_range + step - 1) / step * step;
}

float rounded_range(const torch::Tensor& x) {
  const float largest = x.abs().max().item<float>();
  if (!(largest > 0) || !std::isfinite(largest)) return 1.0f;
  return std::exp2(std::ceil(std::log2(largest) * 4.0f) / 4.0f);
}

std::int64_t version_of(const torch::Tensor& t) {
  return t.is_inference() ? 0 : static_cast<std::int64_t>(t._version());
}

}  // namespace

Int8Weight quantize_rows(const torch::Tensor& weight, bool pack) {
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == torch::kFloat && weight.device().is_cpu(),
              "int8 weights are made from an fp32 [out, in] matrix on the CPU");
  torch::NoGradGuard no_grad;
  const auto w = weight.detach().contiguous();                          // [out, in]
  auto scales = w.abs().amax(1).div(127.0f);                            // [out]
  scales = torch::where(scales > 0, scales, torch::ones_like(scales));  // rows of zeros
  Int8Weight out;
  out.values = w.div(scales.unsqueeze(1)).round().clamp(-127, 127).to(torch::kChar).contiguous();
  out.scales = scales.contiguous();
  if (pack) {
    const auto problem = int8_engine_problem();
    TORCH_CHECK(problem.empty(), problem);
    at::globalContext().setQEngine(at::QEngine::ONEDNN);
    const auto quantized = at::_make_per_channel_quantized_tensor(out.values, out.scales.to(torch::kDouble),
                                                                  torch::zeros({w.size(0)}, torch::kLong), /*axis=*/0);
    std::vector<c10::IValue> stack{quantized, c10::optional<at::Tensor>()};
    linear_prepack_op().callBoxed(&stack);
    out.packed = std::move(stack.at(0));
  }
  return out;
}

torch::Tensor int8_linear(const torch::Tensor& x, const Int8Weight& weight, const torch::Tensor& bias) {
  const std::int64_t out_features = weight.values.size(0), in = weight.values.size(1);
  TORCH_CHECK(x.size(-1) == in, "int8_linear: input of ", x.size(-1), " features for a weight of ", in);
  auto sizes = x.sizes().vec();
  sizes.back() = out_features;
  const std::int64_t rows = x.numel() / in;
  if (rows == 0) return torch::empty(sizes, x.options());
  const auto flat = x.reshape({rows, in}).contiguous();  // [rows, in]
  if (rows == 1) {
    auto y = torch::empty({out_features}, x.options());
    const auto b = bias.defined() ? bias.contiguous() : bias;
    int8_gemv(weight, flat.data_ptr<float>(), b.defined() ? b.data_ptr<float>() : nullptr, y.data_ptr<float>());
    return y.view(sizes);
  }
  torch::Tensor y;  // [rows, out]
  if (weight.packed.isNone()) {
    y = torch::linear(flat, weight.values.to(torch::kFloat) * weight.scales.unsqueeze(1), bias);
  } else {
    const auto padded = padded_rows(rows + 1);
    auto input = torch::zeros({padded, in}, flat.options());  // [padded, in]
    input.narrow(0, 0, rows).copy_(flat);
    const float range = rounded_range(flat);
    auto* range_row = input.data_ptr<float>() + rows * in;
    range_row[0] = range;
    range_row[in > 1 ? 1 : 0] = in > 1 ? -range : range;
    std::vector<c10::IValue> stack{input, weight.packed, /*reduce_range=*/false};
    linear_dynamic_op().callBoxed(&stack);
    y = stack.at(0).toTensor().narrow(0, 0, rows);
    if (bias.defined()) y.add_(bias);
  }
  return y.view(sizes);
}

std::string int8_engine_problem() {
  if (has_onednn_engine()) return "";
  std::string engines;
  for (const auto engine : at::globalContext().supportedQEngines()) {
    if (engine == at::QEngine::NoQEngine) continue;
    engines += (engines.empty() ? "" : ", ") + c10::toString(engine);
  }
  return "int8 linear layers need LibTorch's onednn quantized engine; this LibTorch has " +
         (engines.empty() ? std::string("none") : engines);
}

void set_int8_linear_enabled(bool enabled) {
  if (enabled) {
    const auto problem = int8_engine_problem();
    if (!problem.empty()) throw std::runtime_error(problem);
    at::globalContext().setQEngine(at::QEngine::ONEDNN);
  }
  g_int8_linear = enabled;
}

bool int8_linear_enabled() { return g_int8_linear.load(std::memory_order_relaxed); }

std::shared_ptr<const Int8Weight> int8_weight_of(const torch::Tensor& weight) {
  const auto storage = weight.storage();
  WeightKey key{storage.unsafeGetStorageImpl(), weight.storage_offset(), weight.sizes().vec(), weight.strides().vec()};
  const auto version = version_of(weight);
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  const auto found = g_cache.find(key);
  if (found != g_cache.end() && found->second.version == version && !found->second.storage.expired()) {
    return found->second.weight;
  }
  // Forget the weights of storages freed since (a model unloaded, a weight replaced).
  for (auto it = g_cache.begin(); it != g_cache.end();) {
    it = it->second.storage.expired() ? g_cache.erase(it) : std::next(it);
  }
  CachedInt8Weight entry{storage.getWeakStorageImpl(), version,
                         std::make_shared<const Int8Weight>(quantize_rows(weight))};
  auto made = entry.weight;
  g_cache.insert_or_assign(std::move(key), std::move(entry));
  return made;
}

Int8WeightStats int8_weight_stats() {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  Int8WeightStats stats;
  for (const auto& [key, entry] : g_cache) {
    if (entry.storage.expired()) continue;
    ++stats.matrices;
    stats.int8_bytes += entry.weight->values.nbytes() + entry.weight->scales.nbytes();
    stats.fp32_bytes += entry.weight->values.numel() * static_cast<std::int64_t>(sizeof(float));
  }
  return stats;
}

void apply_quantize(const std::string& quantize, const std::string& kind, const torch::Device& device, bool autocast) {
  if (quantize == "none") return;
  const std::string flag = "--quantize " + quantize + ": ";
  if (kind != "seq2seq") throw std::runtime_error(flag + "for translation models, not a " + kind + " checkpoint");
  if (!device.is_cpu()) throw std::runtime_error(flag + "on the CPU, not " + device.str());
  if (autocast) throw std::runtime_error(flag + "not with --precision bf16 or fp16: choose one");
  try {
    set_int8_linear_enabled(true);
  } catch (const std::exception& error) {
    throw std::runtime_error(flag + error.what());
  }
  spdlog::debug(
      "linear layers on int8 weights, one scale per output row, made on first use (one row: the {} kernel; "
      "several: onednn)",
      int8_gemv_kernel());
}

}  // namespace dls
