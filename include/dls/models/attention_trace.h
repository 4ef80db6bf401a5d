// Attention weights of every layer and head, collected during a forward pass for plots.
#pragma once

#include <vector>

#include <torch/types.h>

namespace dls {

struct AttentionTrace {
  // One tensor per layer, each [B, H, Lq, Lk]. In the dlstudio layout the decoder runs one
  // copy of the target per prefix; the trace keeps the copy with the longest prefix.
  std::vector<torch::Tensor> encoder_self;
  std::vector<torch::Tensor> decoder_self;
  std::vector<torch::Tensor> decoder_cross;
};

}  // namespace dls
