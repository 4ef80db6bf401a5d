# Tests of src/eval, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  eval/bleu_test.cpp
  eval/bleu_nltk_test.cpp
  eval/chrf_test.cpp
  eval/confusion_matrix_test.cpp
  eval/decoding_test.cpp
  eval/int8_decoding_test.cpp
  eval/decoding_options_test.cpp
  eval/rnn_decoding_test.cpp
  eval/word_alignment_test.cpp
  eval/unknown_words_test.cpp
  eval/long_sentences_test.cpp
  eval/sacrebleu_test.cpp
  eval/seq2seq_evaluation_test.cpp
  eval/translator_test.cpp
  eval/tokenizer_13a_test.cpp
  eval/vit_evaluation_test.cpp
  eval/lm_evaluation_test.cpp
  eval/lm_generation_test.cpp
)
