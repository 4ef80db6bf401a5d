# Tests of src/layers, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  layers/attention_test.cpp
  layers/dropout_test.cpp
  layers/embeddings_test.cpp
  layers/fused_attention_test.cpp
  layers/int8_linear_test.cpp
  layers/patch_embedding_test.cpp
  layers/pixel_attention_test.cpp
  layers/rnn_attention_test.cpp
  layers/saved_tensors_test.cpp
  layers/row_linear_test.cpp
  layers/small_batched_matmul_test.cpp
)
