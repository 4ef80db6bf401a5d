// Dropout whose CPU masks are drawn in parallel from a counter-based generator.
//
// torch::dropout draws a CPU mask with bernoulli_, which a LibTorch built without MKL
// (Debian's) runs one element at a time on one thread: ~15 ns an element, 15-20 % of a
// training step of the cpu preset (bench/PERFORMANCE.md, "Dropout masks"). Here element i of
// a mask keeps its value when word i % 4 of Philox4x32-10(key = seed, counter = i / 4) is at
// least p * 2^32 -- the stream of ATen's own engine (ATen/core/PhiloxRNGEngine.h, the
// generator of its CUDA dropout), computed 16 blocks at a time in vector registers -- so any
// stretch of the mask can be filled by any thread and the mask does not depend on how the
// work was split. The seed is one 64-bit draw from the default CPU
// generator per call (a chunk's stream on a chunk's thread: layers/chunk_random.h):
// torch::manual_seed and a resumed run's saved generator give the same masks again. Off the CPU (CUDA: its fused,
// graph-safe kernel) it is torch::dropout.
#pragma once

#include <cstdint>
#include <ostream>

#include <torch/nn/module.h>
#include <torch/nn/options/dropout.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace dls {

// The scaled keep mask of `like`'s shape, dtype and device (CPU): 1 / (1 - p) where element i
// is kept, 0 where it is dropped, for the stream of `seed`. 0 < p < 1.
torch::Tensor dropout_mask(const torch::Tensor& like, double p, std::uint64_t seed);

// Elements begin .. end-1 of the stream of `seed` as keep decisions (1 kept, 0 dropped) into
// keep[0 .. end-begin): one stretch of dropout_mask's work, whatever its bounds.
void fill_keep_decisions(std::uint8_t* keep, std::int64_t begin, std::int64_t end, double p, std::uint64_t seed);

// torch::dropout(x, p, training) with the CPU's masks drawn as above; p 0 or 1, evaluation
// and other devices are torch::dropout itself.
torch::Tensor dropout(const torch::Tensor& x, double p, bool training);

// torch::nn::Dropout's interface (options.p(), train()/eval(), no tensors: checkpoints are
// unchanged) over dls::dropout.
class DropoutImpl : public torch::nn::Module {
 public:
  explicit DropoutImpl(double p = 0.5);
  torch::Tensor forward(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

  torch::nn::DropoutOptions options;
};
TORCH_MODULE(Dropout);

}  // namespace dls
