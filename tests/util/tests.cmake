# Tests of src/util, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  util/runtime_test.cpp
)
