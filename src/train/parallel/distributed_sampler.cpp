#include "dls/train/parallel/distributed_sampler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dls/data/pair_tensors.h"

namespace dls::train {

DistributedSampler::DistributedSampler(std::int64_t n, std::int64_t global_batch, int world_size, int rank,
                                       bool drop_last)
    : n_(n), global_batch_(global_batch), world_size_(world_size), rank_(rank), drop_last_(drop_last) {
  if (n < 0) throw std::invalid_argument("DistributedSampler: negative dataset size " + std::to_string(n));
  if (global_batch <= 0) {
    throw std::invalid_argument("DistributedSampler: global batch size " + std::to_string(global_batch) +
                                " (must be positive)");
  }
  if (world_size <= 0 || rank < 0 || rank >= world_size) {
    throw std::invalid_argument("DistributedSampler: rank " + std::to_string(rank) + " of world size " +
                                std::to_string(world_size));
  }
}

std::int64_t DistributedSampler::steps_per_epoch() const {
  return drop_last_ ? n_ / global_batch_ : (n_ + global_batch_ - 1) / global_batch_;
}

std::int64_t DistributedSampler::global_begin(std::int64_t step) const {
  if (step < 0 || step >= steps_per_epoch()) {
    throw std::out_of_range("DistributedSampler: step " + std::to_string(step) + " of an epoch of " +
                            std::to_string(steps_per_epoch()));
  }
  return step * global_batch_;
}

std::int64_t DistributedSampler::global_count(std::int64_t step) const {
  return std::min(global_batch_, n_ - global_begin(step));
}

std::vector<std::int64_t> DistributedSampler::positions(std::int64_t step) const {
  const auto begin = global_begin(step);
  const auto end = begin + global_count(step);
  const std::int64_t w = world_size_;
  // The first position >= begin that is ≡ rank (mod W).
  const auto first = begin + ((rank_ - begin % w) % w + w) % w;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>((end - begin + w - 1) / w));
  for (auto p = first; p < end; p += w) out.push_back(p);
  return out;
}

std::vector<std::int64_t> DistributedSampler::epoch_positions(std::int64_t first_step) const {
  std::vector<std::int64_t> out;
  for (auto s = first_step; s < steps_per_epoch(); ++s) {
    const auto step = positions(s);
    out.insert(out.end(), step.begin(), step.end());
  }
  return out;
}

std::vector<std::int64_t> rank_epoch_indices(std::int64_t n, std::uint64_t seed, std::int64_t epoch, int world_size,
                                             int rank) {
  // The epoch as one global batch: positions rank, rank + W, … of the permutation.
  const DistributedSampler sampler(n, std::max<std::int64_t>(n, 1), world_size, rank);
  if (n == 0) return {};
  return sampler.take(data::epoch_order(n, seed, epoch), 0);
}

}  // namespace dls::train
