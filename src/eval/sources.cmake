# Sources of src/eval, relative to src/.
list(APPEND DLS_SOURCES
  eval/decoding.cpp
)
