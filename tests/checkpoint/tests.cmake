# Tests of src/checkpoint, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  checkpoint/checkpoint_average_test.cpp
  checkpoint/checkpoint_files_test.cpp
  checkpoint/run_id_test.cpp
  checkpoint/opened_checkpoint_test.cpp
  checkpoint/run_lineage_test.cpp
  checkpoint/checkpoint_test.cpp
  checkpoint/lm_checkpoint_test.cpp
  checkpoint/run_state_test.cpp
  checkpoint/seq2seq_checkpoint_test.cpp
  checkpoint/vit_checkpoint_test.cpp
)
