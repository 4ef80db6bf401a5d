# Sources of src/train, relative to src/.
list(APPEND DLS_SOURCES
  train/best_checkpoint.cpp
  train/budgeted_schedule.cpp
  train/captured_step.cpp
  train/checkpoint_policy.cpp
  train/metrics_file.cpp
  train/optim/adam_archive.cpp
  train/optim/clip_gradients.cpp
  train/optim/fused_adam.cpp
  train/optim/graph_safe_adam.cpp
  train/optim/grad_scaler.cpp
  train/optim/optimizer.cpp
  train/optim/saved_optimizer.cpp
  train/optim/weight_average.cpp
  train/parallel/collectives.cpp
  train/parallel/data_parallel.cpp
  train/parallel/distributed.cpp
  train/parallel/distributed_environment.cpp
  train/parallel/distributed_sampler.cpp
  train/parallel/gradient_buckets.cpp
  train/parallel/gradient_buffer.cpp
  train/parallel/process_group.cpp
  train/parallel/rank_agreement.cpp
  train/parallel/split_batch.cpp
  train/init_from.cpp
  train/run_comparison.cpp
  train/run/run_directory.cpp
  train/run/resumed_settings.cpp
  train/run/run_identity.cpp
  train/run_plots.cpp
  train/run_result.cpp
  train/run_selection.cpp
  train/run/run_start.cpp
  train/step_plan.cpp
  train/stop_signals.cpp
  train/tasks/init_plans.cpp
  train/tasks/lm_metrics.cpp
  train/tasks/lm_presets.cpp
  train/tasks/lm_task.cpp
  train/tasks/lm_trainer.cpp
  train/tasks/seq2seq_metrics.cpp
  train/tasks/seq2seq_presets.cpp
  train/tasks/seq2seq_samples.cpp
  train/tasks/seq2seq_task.cpp
  train/tasks/seq2seq_trainer.cpp
  train/tasks/vit_metrics.cpp
  train/tasks/vit_presets.cpp
  train/tasks/vit_task.cpp
  train/tasks/vit_trainer.cpp
  train/time_budget.cpp
  train/training_log.cpp
  train/training_loop.cpp
  train/training_step.cpp
  train/training_support.cpp
)

# CUDA graphs (train/device_graph.h): at::cuda::CUDAGraph where LibTorch has CUDA, else a
# stand-in that records nothing. DLS_CUDA_GRAPHS=OFF takes the stand-in on a CUDA build too.
if(TARGET torch_cuda AND DLS_CUDA_GRAPHS)
  list(APPEND DLS_SOURCES train/device_graph_cuda.cpp)
  set(DLS_DEVICE_GRAPH_SOURCE train/device_graph_cuda.cpp)
else()
  list(APPEND DLS_SOURCES train/device_graph_none.cpp)
  set(DLS_DEVICE_GRAPH_SOURCE train/device_graph_none.cpp)
endif()
