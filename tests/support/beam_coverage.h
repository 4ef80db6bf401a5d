// GNMT's coverage of one hypothesis, recomputed from a teacher-forced pass of its own, for the
// tests of beam search's coverage penalty: sum_i log(min(sum_j a_ji, 1)) over the source's
// real tokens (not `pad`), a_ji the attention of the step that wrote word j.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "dls/models/translation_model.h"

namespace dls::test {

// src_row [S]; the target as beam search holds it: SOS, `words`, EOS, then EOS up to
// `capacity` positions (the EOS counts as written when there is room for it).
inline double coverage_of(const TranslationModel& model, const torch::Tensor& src_row,
                          const std::vector<std::int64_t>& words, std::int64_t capacity, std::int64_t sos,
                          std::int64_t eos, std::int64_t pad) {
  auto tgt = torch::full({1, capacity}, eos, torch::kLong);
  tgt[0][0] = sos;
  for (std::size_t j = 0; j < words.size(); ++j) tgt[0][static_cast<std::int64_t>(j) + 1] = words[j];
  const auto written = std::min<std::int64_t>(static_cast<std::int64_t>(words.size()) + 1, capacity - 1);
  const auto weights = model.cross_attention(src_row.unsqueeze(0), tgt)[0];            // [C-1, S]
  const auto coverage = weights.narrow(0, 0, written).sum(0).clamp(1e-10, 1.0).log();  // [S]
  return (coverage * (src_row != pad).to(coverage.dtype())).sum().item<double>();
}

}  // namespace dls::test
