// Sentence pairs as index tensors for training and evaluation, and the order in which an
// epoch visits them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/data/corpus.h"
#include "dls/data/vocabulary.h"

namespace dls::data {

struct EncodedPairs {
  torch::Tensor src;             // [N, L] int64: SOS english EOS padding
  torch::Tensor tgt;             // [N, L] int64: SOS spanish EOS padding
  std::int64_t unknown_src = 0;  // words mapped to <unk>
  std::int64_t unknown_tgt = 0;
  std::int64_t size() const { return src.defined() ? src.size(0) : 0; }
};

// Encodes pairs[indices] (all pairs when indices is empty) with length L = max_len.
// Before padded token rows are made: refuses (util/memory_check.h, one line with the numbers)
// `rows` rows of `max_len` ids (8 bytes each, held twice while they become a tensor) when
// they are over the memory available -- L grows with the longest sentence in pieces.
void check_token_rows_fit(std::size_t rows, int max_len);

EncodedPairs encode_pairs(const std::vector<SentencePair>& pairs, const std::vector<std::size_t>& indices,
                          const Vocabulary& english, const Vocabulary& spanish, int max_len,
                          Vocabulary::Padding padding);

// The visiting order of epoch `epoch` (1-based): a permutation of 0..n-1 drawn from
// (seed, epoch) alone, so that a resumed run sees the same batches.
std::vector<std::int64_t> epoch_order(std::int64_t n, std::uint64_t seed, std::int64_t epoch);

// The rows [start, start + size) of order as an index tensor.
torch::Tensor batch_indices(const std::vector<std::int64_t>& order, std::int64_t start, std::int64_t size);

}  // namespace dls::data
