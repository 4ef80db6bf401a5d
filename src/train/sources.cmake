# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/checkpoint.cpp
  train/lr_schedule.cpp
  train/optimizer.cpp
  train/rng_state.cpp
  train/run_directory.cpp
  train/seq2seq_checkpoint.cpp
  train/seq2seq_options.cpp
  train/vit_checkpoint.cpp
  train/vit_data.cpp
  train/vit_metrics.cpp
  train/vit_settings.cpp
  train/vit_trainer.cpp
)
