# End-to-end tests of the programs in apps/, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  apps/blas_kernels_app_test.cpp
  apps/checkpoint_eval_test.cpp
  apps/checkpoint_eval_verbs_test.cpp
  apps/checkpoint_choice_test.cpp
  apps/compare_runs_test.cpp
  apps/decoding_options_app_test.cpp
  apps/quantize_app_test.cpp
  apps/translate_file_test.cpp
  apps/translate_file_faults_test.cpp
  apps/command_line_test.cpp
  apps/data_parallel_test.cpp
  apps/dls_bench_test.cpp
  apps/dlstudio_interop_app_test.cpp
  apps/precision_flag_test.cpp
  apps/preset_files_test.cpp
  apps/reliability_test.cpp
  apps/seq2seq_train_test.cpp
  apps/subword_units_test.cpp
  apps/training_doc_test.cpp
  apps/vit_train_test.cpp
  apps/lm_train_test.cpp
  apps/language_pairs_test.cpp
  apps/translate_server_test.cpp
  apps/server_page_test.cpp
  apps/server_page_interaction_test.cpp
)
