# Tests of src/util, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  util/file_io_test.cpp
  util/random_test.cpp
  util/runtime_test.cpp
)
