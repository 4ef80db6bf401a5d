# Sources of src/data, relative to src/.
list(APPEND DLS_SOURCES
  data/cifar10_reader.cpp
  data/corpus.cpp
  data/detokenize.cpp
  data/idx_reader.cpp
  data/image_folder.cpp
  data/image_loader.cpp
  data/image_set.cpp
  data/image_transform.cpp
  data/languages.cpp
  data/length_buckets.cpp
  data/normalize.cpp
  data/pair_tensors.cpp
  data/pickle.cpp
  data/pickle_graph.cpp
  data/pickle_opcodes.cpp
  data/pickle_value.cpp
  data/split.cpp
  data/subword_model.cpp
  data/token_batches.cpp
  data/vocabulary.cpp
  data/sentence_corpus.cpp
  data/lm_dataset.cpp
  data/running_text.cpp
  data/seq2seq_dataset.cpp
  data/vit_dataset.cpp
)
