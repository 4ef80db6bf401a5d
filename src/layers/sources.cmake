# Sources of src/layers, relative to src/.
list(APPEND DLS_SOURCES
  layers/attention_core.cpp
  layers/attention_head.cpp
  layers/attention_step.cpp
  layers/cross_attention.cpp
  layers/chunk_random.cpp
  layers/dropout.cpp
  layers/embeddings.cpp
  layers/feed_forward.cpp
  layers/fused_attention.cpp
  layers/int8_gemv.cpp
  layers/int8_linear.cpp
  layers/patch_embedding.cpp
  layers/pixel_attention.cpp
  layers/rnn_attention.cpp
  layers/row_linear.cpp
  layers/saved_tensors.cpp
  layers/self_attention.cpp
  layers/small_batched_matmul.cpp
  layers/transformer_config.cpp
)
