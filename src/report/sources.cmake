# Sources of src/report, relative to src/.
list(APPEND DLS_SOURCES
  report/eval_jobs.cpp
  report/file_translation.cpp
  report/image_classes_report.cpp
  report/lm_checkpoint_report.cpp
  report/score_json.cpp
  report/sentence_translation.cpp
  report/seq2seq_checkpoint_report.cpp
  report/text_scoring.cpp
  report/vit_checkpoint_report.cpp
)
