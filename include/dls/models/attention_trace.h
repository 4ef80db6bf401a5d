// Attention weights of every layer and head, collected during a forward pass for plots.
#pragma once

#include <vector>

#include <torch/types.h>

namespace dls {

struct AttentionTrace {
  // One tensor per layer, each [B, H, Lq, Lk]. The decoder's rows are the queries that
  // predict target words 1..L-1, in order. In the dlstudio layout each comes from its own
  // prefix copy of the target (the query at position i+1 of the copy that keeps rows 0..i),
  // and a self-attention row has 0 on the zeroed keys after position i: [B, H, L-1, L].
  std::vector<torch::Tensor> encoder_self;
  std::vector<torch::Tensor> decoder_self;
  std::vector<torch::Tensor> decoder_cross;
};

}  // namespace dls
