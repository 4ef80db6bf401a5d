# Sources of src/util, relative to src/.
list(APPEND DLS_SOURCES
  util/runtime.cpp
)
