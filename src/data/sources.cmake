# Sources of src/data, relative to src/.
list(APPEND DLS_SOURCES
  data/cifar10_reader.cpp
  data/idx_reader.cpp
  data/image_loader.cpp
  data/image_set.cpp
  data/image_transform.cpp
)
