# Tests of src/train, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  train/best_checkpoint_test.cpp
  train/budgeted_schedule_test.cpp
  train/captured_step_test.cpp
  train/init_from_test.cpp
  train/mixed_precision_test.cpp
  train/optim/fused_adam_test.cpp
  train/optim/grad_scaler_test.cpp
  train/optim/graph_safe_adam_test.cpp
  train/optim/weight_average_test.cpp
  train/parallel/data_parallel_test.cpp
  train/parallel/distributed_sampler_test.cpp
  train/parallel/distributed_test.cpp
  train/parallel/gradient_buffer_test.cpp
  train/parallel/split_batch_test.cpp
  train/run_directory_test.cpp
  train/run_identity_test.cpp
  train/run_plots_test.cpp
  train/step_operators_test.cpp
  train/step_plan_test.cpp
  train/tasks/bucketed_batch_test.cpp
  train/tasks/seq2seq_presets_test.cpp
  train/tasks/seq2seq_trainer_test.cpp
  train/tasks/vit_trainer_test.cpp
  train/time_budget_test.cpp
  train/training_loop_test.cpp
)
