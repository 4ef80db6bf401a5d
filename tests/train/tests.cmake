# Tests of src/train, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  train/best_checkpoint_test.cpp
  train/bucketed_batch_test.cpp
  train/budgeted_schedule_test.cpp
  train/distributed_sampler_test.cpp
  train/data_parallel_test.cpp
  train/distributed_test.cpp
  train/fused_adam_test.cpp
  train/grad_scaler_test.cpp
  train/gradient_buffer_test.cpp
  train/mixed_precision_test.cpp
  train/run_directory_test.cpp
  train/run_identity_test.cpp
  train/seq2seq_trainer_test.cpp
  train/split_batch_test.cpp
  train/time_budget_test.cpp
  train/training_loop_test.cpp
  train/vit_trainer_test.cpp
  train/weight_average_test.cpp
)
