// Token-budget batches (--max-tokens N; fairseq's --max-tokens, Marian's
// --mini-batch-words): batches of pairs of similar length, each holding at most N tokens
// once padded, so that short sentences come many to a batch and long ones few.
//
// The plan is made once per run, from the pairs' lengths and the seed alone: the pairs are
// ordered by length (equal lengths in a random order drawn from the seed), then cut greedily
// into batches whose rows x longest length stays within N. Every epoch takes the same
// batches in its own random order, drawn from (seed, epoch) alone. So the steps of an epoch
// are fixed, and a run resumed at (epoch, step) takes exactly the batches it would have taken
// (the same determinism as the sentence batches of pair_tensors.h's epoch_order).
#pragma once

#include <cstdint>
#include <vector>

#include "dls/data/pair_tensors.h"

namespace dls::data {

// Each pair's longer side in tokens (SOS and EOS included: not `pad_index`), from its rows
// of pairs.src and pairs.tgt [N, L]: what a batch of it is cut to.
std::vector<std::int64_t> longer_side_lengths(const EncodedPairs& pairs, std::int64_t pad_index);

// Pair indices per batch; `lengths[i]`: pair i's longer side in tokens (SOS and EOS
// included), each at most `max_tokens` (else std::invalid_argument naming both numbers).
std::vector<std::vector<std::int64_t>> plan_token_batches(const std::vector<std::int64_t>& lengths,
                                                          std::int64_t max_tokens, std::uint64_t seed);

// Epoch `epoch`'s order of `batches` planned batches: a permutation of 0..batches-1.
std::vector<std::int64_t> token_batch_order(std::size_t batches, std::uint64_t seed, std::int64_t epoch);

// The rows of a batch that rank `rank` of `world_size` trains on: positions p of the batch
// with p = rank (mod world_size), as train/parallel/distributed_sampler.h strides a global batch.
std::vector<std::int64_t> rank_share(const std::vector<std::int64_t>& batch, int world_size, int rank);

}  // namespace dls::data
