// Length-bucketed batches: an epoch order in which each batch holds pairs of similar
// length, so that a batch can be cut to its own longest sentence instead of padded to L.
// The order is still a permutation of the pairs (every pair once per epoch) drawn from
// (seed, epoch) alone, so the samplers and resume work on it unchanged; the batches
// themselves come in a random order, so training stays random.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <torch/types.h>

namespace dls::data {

// Real tokens (SOS, words, EOS: not `pad_index`) of each row of `tokens` [N, L].
std::vector<std::int64_t> token_counts(const torch::Tensor& tokens, std::int64_t pad_index);

// Epoch `epoch`'s order: data::epoch_order, cut into pools of `pool_batches` batches, each
// pool sorted by `lengths` (stable, so equal lengths stay shuffled), cut into batches of
// `batch_size`, and the full batches shuffled; a short last batch (N mod B pairs) stays
// last, where the samplers expect it.
std::vector<std::int64_t> bucketed_epoch_order(const std::vector<std::int64_t>& lengths, std::int64_t batch_size,
                                               std::uint64_t seed, std::int64_t epoch, std::int64_t pool_batches = 100);

// The columns `tokens` [B, L] needs: up to its last column holding a real token (>= 1).
std::int64_t used_columns(const torch::Tensor& tokens, std::int64_t pad_index);

// Static-shape batches (the prerequisite for replaying a captured training step, CUDA
// graphs): every batch the same number of rows, and one of a few widths.

// The widths a length bucket's batch is padded to: its used columns rounded up to a multiple
// of kStaticWidthStep, at most `max_len` (L = 10: 4, 8 or 10).
constexpr std::int64_t kStaticWidthStep = 4;
std::int64_t static_width(std::int64_t used, std::int64_t max_len);

// Pairs src, tgt [b, w] padded with fully masked rows to [rows, w] (rows >= b). A masked
// row's source is `filler_src` [w] (a real sentence: an all-<pad> source would leave
// attention no key, and NaN), its target the first token of `filler_tgt` (SOS) followed by
// <pad> (`pad_index`): its targets tgt[:, 1:] are all <pad>, which both losses ignore
// (models/sequence_loss.h), so it contributes nothing to the loss nor to any gradient.
std::pair<torch::Tensor, torch::Tensor> pad_rows_masked(const torch::Tensor& src, const torch::Tensor& tgt,
                                                        std::int64_t rows, const torch::Tensor& filler_src,
                                                        const torch::Tensor& filler_tgt, std::int64_t pad_index);

}  // namespace dls::data
