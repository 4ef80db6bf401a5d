# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/data_parallel.cpp
  train/distributed.cpp
  train/distributed_environment.cpp
  train/distributed_sampler.cpp
  train/metrics_file.cpp
  train/fused_adam.cpp
  train/gradient_buckets.cpp
  train/gradient_buffer.cpp
  train/optimizer.cpp
  train/run_directory.cpp
  train/run_identity.cpp
  train/seq2seq_data.cpp
  train/seq2seq_metrics.cpp
  train/seq2seq_presets.cpp
  train/seq2seq_samples.cpp
  train/seq2seq_task.cpp
  train/seq2seq_trainer.cpp
  train/split_batch.cpp
  train/stop_signals.cpp
  train/training_loop.cpp
  train/training_support.cpp
  train/vit_metrics.cpp
  train/vit_presets.cpp
  train/vit_task.cpp
  train/vit_trainer.cpp
)
