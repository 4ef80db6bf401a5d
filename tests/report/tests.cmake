# Tests of src/report, relative to tests/.
list(APPEND DLS_TEST_SOURCES
  report/one_model_jobs_test.cpp
  report/sentence_translation_test.cpp
  report/seq2seq_checkpoint_report_test.cpp
  report/text_scoring_test.cpp
  report/vit_checkpoint_report_test.cpp
)
