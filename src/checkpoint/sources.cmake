# Sources of src/checkpoint, relative to src/.
list(APPEND DLS_SOURCES
  checkpoint/checkpoint.cpp
  checkpoint/checkpoint_average.cpp
  checkpoint/run_lineage.cpp
  checkpoint/checkpoint_files.cpp
  checkpoint/run_id.cpp
  checkpoint/opened_checkpoint.cpp
  checkpoint/run_state.cpp
  checkpoint/rng_state.cpp
  checkpoint/seq2seq_checkpoint.cpp
  checkpoint/vit_checkpoint.cpp
  checkpoint/lm_checkpoint.cpp
)
