# Tests of src/data, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  data/image_dataset_test.cpp
  data/image_loader_test.cpp
  data/image_transform_test.cpp
  data/prefetcher_test.cpp
)
