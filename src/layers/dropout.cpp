#include "dls/layers/dropout.h"

#include "dls/layers/chunk_random.h"

#include <cmath>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/OpMathType.h>
#include <torch/torch.h>

namespace dls {

namespace {

// Elements per task of the parallel fill: ~10 us of Philox rounds.
constexpr std::int64_t kGrain = 16384;

// Philox4x32-10 (Salmon et al., SC 2011) as ATen's philox_engine computes it for subsequence 0:
// words[w][j] is word w of the block with counter first + j under key seed. ATen's engine runs
// one block at a time, a chain of ten dependent multiplications (~5 ns a word here); kLanes
// independent blocks let the compiler vectorise the rounds, cloned for AVX-512 and AVX2 and
// chosen at run time.
constexpr std::int64_t kLanes = 16;
constexpr std::uint32_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;  // kPhiloxSA, kPhiloxSB
constexpr std::uint32_t kKeyStep0 = 0x9E3779B9, kKeyStep1 = 0xBB67AE85;        // kPhilox10A, kPhilox10B

__attribute__((target_clones("avx512f", "avx2", "default"))) void philox_blocks(std::uint64_t first, std::uint64_t seed,
                                                                                std::uint32_t (&words)[4][kLanes]) {
  const std::uint32_t key0 = static_cast<std::uint32_t>(seed), key1 = static_cast<std::uint32_t>(seed >> 32);
  // One lane a block, its ten rounds unrolled: straight-line code the loop over lanes vectorises.
  for (std::int64_t j = 0; j < kLanes; ++j) {
    const std::uint64_t counter = first + static_cast<std::uint64_t>(j);
    std::uint32_t c0 = static_cast<std::uint32_t>(counter), c1 = static_cast<std::uint32_t>(counter >> 32);
    std::uint32_t c2 = 0, c3 = 0, k0 = key0, k1 = key1;
#pragma GCC unroll 10
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t product0 = std::uint64_t{kMultiplier0} * c0;
      const std::uint64_t product1 = std::uint64_t{kMultiplier1} * c2;
      c0 = static_cast<std::uint32_t>(product1 >> 32) ^ c1 ^ k0;
      c2 = static_cast<std::uint32_t>(product0 >> 32) ^ c3 ^ k1;
      c1 = static_cast<std::uint32_t>(product1);
      c3 = static_cast<std::uint32_t>(product0);
      k0 += kKeyStep0;
      k1 += kKeyStep1;
    }
    words[0][j] = c0;
    words[1][j] = c1;
    words[2][j] = c2;
    words[3][j] = c3;
  }
}

// The smallest 32-bit word that keeps: a word is below it with probability p (to 2^-32).
std::uint64_t keep_threshold(double p) { return static_cast<std::uint64_t>(std::ceil(p * 4294967296.0)); }

}  // namespace

void fill_keep_decisions(std::uint8_t* keep, std::int64_t begin, std::int64_t end, double p, std::uint64_t seed) {
  const std::uint64_t threshold = keep_threshold(p);
  std::uint32_t words[4][kLanes];
  // Element i is word i % 4 of block i / 4; blocks kLanes at a time from the one holding begin.
  for (std::int64_t block = begin / 4; block * 4 < end; block += kLanes) {
    philox_blocks(static_cast<std::uint64_t>(block), seed, words);
    for (std::int64_t j = 0; j < kLanes; ++j) {
      for (std::int64_t w = 0; w < 4; ++w) {
        const std::int64_t i = (block + j) * 4 + w;
        if (i >= begin && i < end) keep[i - begin] = words[w][j] >= threshold ? 1 : 0;
      }
    }
  }
}

torch::Tensor dropout_mask(const torch::Tensor& like, double p, std::uint64_t seed) {
  TORCH_CHECK(p > 0 && p < 1, "dropout_mask: p = ", p, " is outside (0, 1)");
  TORCH_CHECK(like.device().is_cpu(), "dropout_mask: CPU tensors only");
  auto mask = torch::empty(like.sizes(), like.options().memory_format(c10::MemoryFormat::Contiguous));
  const std::int64_t n = mask.numel();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout_mask", [&] {
    // The scale as torch::dropout computes it (its mask of ones divided by 1 - p in the type's
    // arithmetic: float for the 16-bit types), bit for bit, without operators of its own.
    using arithmetic = at::opmath_type<scalar_t>;
    const auto kept = static_cast<scalar_t>(arithmetic{1} / static_cast<arithmetic>(1 - p));
    auto* out = mask.data_ptr<scalar_t>();
    at::parallel_for(0, n, kGrain, [&](std::int64_t begin, std::int64_t end) {
      std::uint8_t keep[kGrain];
      for (std::int64_t start = begin; start < end; start += kGrain) {
        const std::int64_t stop = std::min(end, start + kGrain);
        fill_keep_decisions(keep, start, stop, p, seed);
        for (std::int64_t i = start; i < stop; ++i) out[i] = keep[i - start] ? kept : static_cast<scalar_t>(0);
      }
    });
  });
  return mask;
}

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p <= 0 || p >= 1 || !x.device().is_cpu() || x.numel() == 0 || !x.is_floating_point()) {
    return torch::dropout(x, p, training);
  }
  torch::Tensor mask;
  {
    torch::NoGradGuard no_grad;  // the mask is a constant of backward: x * mask saves it alone
    mask = dropout_mask(x, p, draw_seed());
  }
  return x * mask;
}

DropoutImpl::DropoutImpl(double p) : options(p) {
  TORCH_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

torch::Tensor DropoutImpl::forward(const torch::Tensor& x) { return dls::dropout(x, options.p(), is_training()); }

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Dropout(p=" << options.p() << ", inplace=false)";
}

}  // namespace dls
