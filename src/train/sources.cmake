# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/checkpoint.cpp
  train/distributed.cpp
  train/distributed_environment.cpp
  train/distributed_sampler.cpp
  train/metrics_file.cpp
  train/lr_schedule.cpp
  train/fused_adam.cpp
  train/gradient_buffer.cpp
  train/optimizer.cpp
  train/rng_state.cpp
  train/run_directory.cpp
  train/seq2seq_checkpoint.cpp
  train/seq2seq_data.cpp
  train/seq2seq_metrics.cpp
  train/seq2seq_samples.cpp
  train/seq2seq_options.cpp
  train/seq2seq_trainer.cpp
  train/split_batch.cpp
  train/training_support.cpp
  train/vit_checkpoint.cpp
  train/vit_data.cpp
  train/vit_metrics.cpp
  train/vit_settings.cpp
  train/vit_trainer.cpp
)
