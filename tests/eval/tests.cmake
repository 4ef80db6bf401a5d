# Tests of src/eval, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  eval/bleu_test.cpp
  eval/bleu_nltk_test.cpp
)
