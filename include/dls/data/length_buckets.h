// Length-bucketed batches: an epoch order in which each batch holds pairs of similar
// length, so that a batch can be cut to its own longest sentence instead of padded to L.
// The order is still a permutation of the pairs (every pair once per epoch) drawn from
// (seed, epoch) alone, so the samplers and resume work on it unchanged; the batches
// themselves come in a random order, so training stays random.
#pragma once

#include <cstdint>
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

}  // namespace dls::data
