// Attention layers as DLStudio's module tree has them (and this project's before the heads
// were fused): `attention_heads_arr` of H AttentionHead modules, each with its own WQ, WK, WV,
// then W_O (vaswani) and attention_dropout. Made with the same seed as a SelfAttention or
// CrossAttention, they hold the same numbers (attention.h), which lets a test write files
// of the per-head layout and read them back into the fused one, and the other way round.
#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "dls/layers/attention.h"

namespace dls::test_support {

class PerHeadAttentionImpl : public torch::nn::Module {
 public:
  PerHeadAttentionImpl(const TransformerConfig& config, bool cross) : config_(config) {
    attention_heads_arr = register_module("attention_heads_arr", torch::nn::ModuleList());
    for (std::int64_t h = 0; h < config.num_heads(); ++h) {
      if (cross) {
        attention_heads_arr->push_back(CrossAttentionHead(config));
      } else {
        attention_heads_arr->push_back(AttentionHead(config));
      }
    }
    if (config.layout() == Layout::kVaswani) {
      W_O = register_module("W_O", torch::nn::Linear(config.embedding_size(), config.embedding_size()));
    }
    register_module("attention_dropout", Dropout(config.effective_dropout()));
  }

  // DLStudio's loop over heads for x [B, L, M], keys and values from `memory` (itself for
  // self-attention); no mask.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory) {
    const std::int64_t s = config_.head_size();
    std::vector<torch::Tensor> outputs;
    for (std::int64_t h = 0; h < config_.num_heads(); ++h) {
      auto& head = *attention_heads_arr[h]->as<AttentionHeadImpl>();
      const bool sliced = config_.dlstudio_family();
      outputs.push_back(head.attend(sliced ? x.narrow(2, h * s, s) : x, sliced ? memory.narrow(2, h * s, s) : memory,
                                    torch::Tensor(), nullptr));
    }
    auto out = torch::cat(outputs, 2);
    return W_O ? W_O(out) : out;
  }

  torch::nn::ModuleList attention_heads_arr{nullptr};
  torch::nn::Linear W_O{nullptr};

 private:
  TransformerConfig config_;
};
TORCH_MODULE(PerHeadAttention);

}  // namespace dls::test_support
