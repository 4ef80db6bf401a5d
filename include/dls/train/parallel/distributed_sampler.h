// Which samples each process of a data-parallel run trains on.
//
// Every rank draws the same permutation of the epoch, the one a single process uses
// (data::epoch_order for sentence pairs, data::image_epoch_order for images: seeded by
// (seed, epoch) alone), and cuts it into global batches as one process does: step s covers
// the positions [s·B, min((s+1)·B, N)) of the permutation. Rank r of W takes the positions
// p of that range with p ≡ r (mod W):
//
//   positions  0 1 2 3 4 5 6 7 8 9    N = 10, B = 4, W = 3
//   step       0 0 0 0 1 1 1 1 2 2
//   rank       0 1 2 0 1 2 0 1 2 0
//
// Why strided by global position and not a contiguous block of each global batch: both cut
// a global batch into shares that differ by at most one, but blocks give the first B mod W
// ranks one more sample every step, while strides keep the epoch's shares within one too
// (rank r's epoch is positions r, r+W, r+2W, …: PyTorch's DistributedSampler without its
// padding). The shares are disjoint and together cover every position once; no sample is
// padded or dropped (except a short last batch under drop_last, as ImageLoader drops it).
//
// Same gradient as one process: a rank's loss is the sum of its samples' losses divided by
// global_count(step), the rows of the whole global batch (not its own share), so the SUM
// all-reduce of the ranks' gradients is the gradient of the global batch's mean loss.
// A rank's share can be empty (a last global batch with fewer rows than ranks): it must
// still take part in the all-reduce, with zero gradients.
//
// Resume: the position in an epoch is a global step, and step s covers the same positions
// whatever the world size, so a run resumed with another world size neither repeats nor
// skips samples. The global batch size must stay the same (or resume from s·B samples).
#pragma once

#include <cstdint>
#include <vector>

namespace dls::train {

class DistributedSampler {
 public:
  // n samples, global batch size B > 0, rank in [0, world_size); drop_last: no short final
  // global batch (as data::ImageLoaderOptions::drop_last). Throws std::invalid_argument.
  DistributedSampler(std::int64_t n, std::int64_t global_batch, int world_size = 1, int rank = 0,
                     bool drop_last = false);

  std::int64_t size() const { return n_; }
  std::int64_t global_batch() const { return global_batch_; }
  int world_size() const { return world_size_; }
  int rank() const { return rank_; }

  // Global steps of an epoch: ceil(N / B), or floor(N / B) with drop_last.
  std::int64_t steps_per_epoch() const;
  // The first position of step `step` (s·B) and the rows of its global batch: the count
  // that normalises every rank's loss. Throws std::out_of_range past the epoch.
  std::int64_t global_begin(std::int64_t step) const;
  std::int64_t global_count(std::int64_t step) const;

  // This rank's positions in step `step`, increasing; possibly empty.
  std::vector<std::int64_t> positions(std::int64_t step) const;
  // This rank's positions in the steps [first_step, steps_per_epoch()), in step order.
  std::vector<std::int64_t> epoch_positions(std::int64_t first_step = 0) const;

  // The samples themselves: order[p] for p in positions(step), where `order` is the epoch's
  // permutation (size N).
  template <typename T>
  std::vector<T> take(const std::vector<T>& order, std::int64_t step) const {
    std::vector<T> out;
    for (const auto p : positions(step)) out.push_back(order.at(static_cast<std::size_t>(p)));
    return out;
  }

 private:
  std::int64_t n_;
  std::int64_t global_batch_;
  int world_size_;
  int rank_;
  bool drop_last_;
};

// This rank's sentence pairs for a whole epoch: data::epoch_order(n, seed, epoch) at the
// positions r, r+W, r+2W, … (the union over ranks is the epoch, each pair once).
std::vector<std::int64_t> rank_epoch_indices(std::int64_t n, std::uint64_t seed, std::int64_t epoch, int world_size,
                                             int rank);

}  // namespace dls::train
