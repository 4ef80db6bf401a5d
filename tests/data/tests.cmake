# Tests of src/data, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  data/corpus_test.cpp
  data/data_folder_test.cpp
  data/detokenize_test.cpp
  data/image_dataset_test.cpp
  data/image_folder_test.cpp
  data/image_loader_test.cpp
  data/image_transform_test.cpp
  data/languages_test.cpp
  data/length_buckets_test.cpp
  data/token_batches_test.cpp
  data/normalize_test.cpp
  data/pickle_test.cpp
  data/prefetcher_test.cpp
  data/split_test.cpp
  data/subword_model_test.cpp
  data/vocabulary_test.cpp
  data/sentence_corpus_test.cpp
  data/lm_dataset_test.cpp
  data/running_text_test.cpp
  data/seq2seq_dataset_test.cpp
  data/vit_dataset_test.cpp
)
