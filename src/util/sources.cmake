# Sources of src/util, relative to src/.
list(APPEND DLS_SOURCES
  util/file_io.cpp
  util/key_values.cpp
  util/random.cpp
  util/runtime.cpp
)
