# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/checkpoint.cpp
  train/lr_schedule.cpp
)
