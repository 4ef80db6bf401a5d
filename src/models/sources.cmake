# Sources of src/models, relative to src/.
list(APPEND DLS_SOURCES
  models/decoder.cpp
  models/decoder_session.cpp
  models/decoding_session.cpp
  models/encoder.cpp
  models/rnn_seq2seq.cpp
  models/rnn_decoder_session.cpp
  models/translation_model.cpp
  models/seq2seq.cpp
  models/vit.cpp
  models/language_model.cpp
  models/language_model_loss.cpp
  models/seq2seq_loss.cpp
  models/sequence_loss.cpp
  models/memory_estimate.cpp
)
