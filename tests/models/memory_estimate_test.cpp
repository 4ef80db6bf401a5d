// The training-memory estimate counts, from the config alone, the parameters the modules
// create: checked against real models of every layout, variant and task.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/models/memory_estimate.h"

namespace dls {
namespace {

TransformerConfig estimate_test_block(Variant variant, Layout layout) {
  return TransformerConfig()
      .variant(variant)
      .layout(layout)
      .embedding_size(24)
      .num_heads(3)
      .max_seq_length(7)
      .ffn_multiplier(3);
}

TEST(MemoryEstimate, CountsTheParametersASeq2SeqModelCreates) {
  for (const auto layout : {Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani}) {
    for (const auto variant : {Variant::kFG, Variant::kPreLN}) {
      const auto config = Seq2SeqConfig()
                              .transformer(estimate_test_block(variant, layout))
                              .num_encoders(2)
                              .num_decoders(3)
                              .src_vocab_size(41)
                              .tgt_vocab_size(53);
      const auto memory = seq2seq_training_memory(config, 8);
      EXPECT_EQ(memory.parameters, count_parameters(*Seq2SeqTransformer(config)).parameters)
          << to_string(layout) << " " << to_string(variant);
      EXPECT_DOUBLE_EQ(memory.state_bytes, 16.0 * static_cast<double>(memory.parameters));
      EXPECT_GT(memory.activation_bytes, 0);
    }
  }
}

// The RNN encoder-decoder had no estimate: --rnn-hidden-size 6000 ran 20 s into 3.4 GB and
// ended in the allocator's error, where a transformer is refused before anything is allocated.
TEST(MemoryEstimate, CountsTheParametersAnRnnEncoderDecoderCreates) {
  for (const auto cell : {RnnCell::kGru, RnnCell::kLstm}) {
    for (const bool bidirectional : {true, false}) {
      for (const auto placement : {AttentionPlacement::kBahdanau, AttentionPlacement::kLuong}) {
        for (const auto score : {AttentionScore::kAdditive, AttentionScore::kGeneral, AttentionScore::kDot}) {
          RnnSeq2SeqConfig config;
          config.source_vocab = 41;
          config.target_vocab = 53;
          config.embedding_size = 6;
          config.hidden_size = 8;
          config.layers = 2;
          config.bidirectional = bidirectional;
          config.cell = cell;
          config.placement = placement;
          config.score = score;
          config.attention_size = score == AttentionScore::kAdditive ? 5 : 0;
          config.max_seq_length = 10;
          if (score == AttentionScore::kDot && bidirectional) continue;  // refused: the sizes differ
          const auto memory = rnn_seq2seq_training_memory(config, 4);
          EXPECT_EQ(memory.parameters, count_parameters(*RnnSeq2Seq(config)).parameters)
              << config.summary() << (placement == AttentionPlacement::kLuong ? " luong" : " bahdanau");
          EXPECT_GT(memory.activation_bytes, 0);
        }
      }
    }
  }
}

TEST(MemoryEstimate, CountsATiedMatrixOnce) {
  const auto config = Seq2SeqConfig()
                          .transformer(estimate_test_block(Variant::kFG, Layout::kVaswani))
                          .num_encoders(1)
                          .num_decoders(1)
                          .src_vocab_size(50)
                          .tgt_vocab_size(50)
                          .tie_embeddings(true);
  auto model = Seq2SeqTransformer(config);
  std::int64_t distinct = 0;
  for (const auto& item : model->named_parameters()) {
    if (item.key().find("embeddings_generator") == std::string::npos) distinct += item.value().numel();
  }
  EXPECT_EQ(seq2seq_training_memory(config, 4).parameters, distinct);
}

TEST(MemoryEstimate, CountsTheParametersALanguageModelCreates) {
  for (const auto variant : {Variant::kFG, Variant::kPreLN}) {  // the LM has the vaswani layout only
    const auto config = LanguageModelConfig()
                            .transformer(estimate_test_block(variant, Layout::kVaswani))
                            .num_decoders(2)
                            .vocab_size(37);
    EXPECT_EQ(language_model_training_memory(config, 8).parameters, count_parameters(*LanguageModel(config)).parameters)
        << to_string(variant);
  }
}

TEST(MemoryEstimate, CountsTheParametersAViTCreates) {
  auto plain = ViTConfig().num_encoders(2);
  plain.transformer().embedding_size(32).num_heads(2);
  auto stem = plain;
  stem.stem({{32, 2}, {32, 1}}).pixel_attention({1, 2}).patch_size(4).conv_patch_embedding(true);
  stem.transformer().variant(Variant::kPreLN);
  for (const auto& config : {plain, stem}) {
    EXPECT_EQ(vit_training_memory(config, 8).parameters, count_parameters(*visTransformer(config)).parameters)
        << config.summary();
  }
}

// The estimate of a real training step's memory is within a sane factor of what the
// step holds: the weights, gradients and Adam's moments (16 bytes a parameter) and the
// activations, which grow with the batch.
TEST(MemoryEstimate, GrowsWithTheBatchAndStaysNearTheParametersBytes) {
  const auto config = Seq2SeqConfig()
                          .transformer(estimate_test_block(Variant::kFG, Layout::kVaswani))
                          .num_encoders(2)
                          .num_decoders(2)
                          .src_vocab_size(300)
                          .tgt_vocab_size(300);
  const auto small = seq2seq_training_memory(config, 1), large = seq2seq_training_memory(config, 64);
  const double parameter_bytes = 4.0 * static_cast<double>(count_parameters(*Seq2SeqTransformer(config)).parameters);
  EXPECT_GE(small.total_bytes(), 4 * parameter_bytes);
  EXPECT_LE(small.total_bytes(), 8 * parameter_bytes);
  EXPECT_NEAR(large.activation_bytes, 64 * small.activation_bytes, 1e-6 * large.activation_bytes);
  EXPECT_EQ(describe_training_memory(large, 64).find("the model ("), 0u);
}

}  // namespace
}  // namespace dls
