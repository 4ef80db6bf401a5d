# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/checkpoint.cpp
  train/lr_schedule.cpp
  train/optimizer.cpp
  train/rng_state.cpp
  train/run_directory.cpp
  train/seq2seq_checkpoint.cpp
  train/seq2seq_options.cpp
)
