# Sources of src/data, relative to src/.
list(APPEND DLS_SOURCES
  data/corpus.cpp
  data/normalize.cpp
  data/pickle.cpp
  data/pickle_graph.cpp
  data/pickle_opcodes.cpp
  data/pickle_value.cpp
  data/split.cpp
  data/utf8.cpp
  data/vocabulary.cpp
)
