# Tests of src/data, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  data/image_dataset_test.cpp
)
