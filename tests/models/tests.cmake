# Tests of src/models, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  models/decoder_test.cpp
  models/dlstudio_reference_test.cpp
  models/encoder_test.cpp
  models/seq2seq_overfit_test.cpp
  models/rnn_seq2seq_test.cpp
  models/seq2seq_test.cpp
  models/vit_test.cpp
  models/language_model_test.cpp
  models/sequence_loss_test.cpp
  models/seq2seq_loss_test.cpp
  models/memory_estimate_test.cpp
)
