#include "dls/data/length_buckets.h"

#include <algorithm>

#include <torch/torch.h>

#include "dls/data/pair_tensors.h"
#include "dls/util/random.h"

namespace dls::data {

std::vector<std::int64_t> token_counts(const torch::Tensor& tokens, std::int64_t pad_index) {
  const auto counts = (tokens != pad_index).sum(1).to(torch::kInt64).contiguous();  // [N]
  return {counts.data_ptr<std::int64_t>(), counts.data_ptr<std::int64_t>() + counts.numel()};
}

std::vector<std::int64_t> bucketed_epoch_order(const std::vector<std::int64_t>& lengths, std::int64_t batch_size,
                                               std::uint64_t seed, std::int64_t epoch, std::int64_t pool_batches) {
  const auto n = static_cast<std::int64_t>(lengths.size());
  auto order = epoch_order(n, seed, epoch);
  const std::int64_t pool = std::max<std::int64_t>(1, batch_size * pool_batches);
  for (std::int64_t start = 0; start < n; start += pool) {
    std::stable_sort(order.begin() + start, order.begin() + std::min(n, start + pool),
                     [&](std::int64_t a, std::int64_t b) {
                       return lengths[static_cast<std::size_t>(a)] < lengths[static_cast<std::size_t>(b)];
                     });
  }
  // The full batches in a random order (their own stream of the seed); the short one last.
  std::vector<std::int64_t> batches(static_cast<std::size_t>(n / batch_size));
  for (std::size_t k = 0; k < batches.size(); ++k) batches[k] = static_cast<std::int64_t>(k);
  util::Rng rng(util::derive_seed(seed, static_cast<std::uint64_t>(epoch), 0xb0c7));
  util::shuffle(batches, rng);
  std::vector<std::int64_t> out;
  out.reserve(order.size());
  for (const auto k : batches) {
    out.insert(out.end(), order.begin() + k * batch_size, order.begin() + (k + 1) * batch_size);
  }
  out.insert(out.end(), order.begin() + static_cast<std::int64_t>(batches.size()) * batch_size, order.end());
  return out;
}

std::int64_t used_columns(const torch::Tensor& tokens, std::int64_t pad_index) {
  const auto used = (tokens != pad_index).any(0);  // [L]
  const auto columns = used.nonzero();
  return columns.size(0) > 0 ? columns.max().item<std::int64_t>() + 1 : 1;
}

std::int64_t static_width(std::int64_t used, std::int64_t max_len) {
  const std::int64_t rounded =
      (std::max<std::int64_t>(used, 1) + kStaticWidthStep - 1) / kStaticWidthStep * kStaticWidthStep;
  return std::min(rounded, max_len);
}

std::pair<torch::Tensor, torch::Tensor> pad_rows_masked(const torch::Tensor& src, const torch::Tensor& tgt,
                                                        std::int64_t rows, const torch::Tensor& filler_src,
                                                        const torch::Tensor& filler_tgt, std::int64_t pad_index) {
  TORCH_CHECK(src.dim() == 2 && tgt.dim() == 2 && src.size(0) == tgt.size(0) && rows >= src.size(0),
              "pad_rows_masked: expected src and tgt [b, w] with b <= rows");
  TORCH_CHECK(filler_src.dim() == 1 && filler_src.size(0) == src.size(1) && filler_tgt.dim() == 1 &&
                  filler_tgt.size(0) == tgt.size(1),
              "pad_rows_masked: the filler rows must be as wide as the batch");
  const std::int64_t extra = rows - src.size(0);
  if (extra == 0) return {src, tgt};
  auto masked_tgt = torch::full({extra, tgt.size(1)}, pad_index, tgt.options());
  masked_tgt.select(1, 0).fill_(filler_tgt[0].item<std::int64_t>());
  return {torch::cat({src, filler_src.unsqueeze(0).expand({extra, -1}).to(src.options())}),
          torch::cat({tgt, masked_tgt})};
}

}  // namespace dls::data
