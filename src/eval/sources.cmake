# Sources of src/eval, relative to src/.
list(APPEND DLS_SOURCES
  eval/bleu.cpp
  eval/bleu_counts.cpp
  eval/bleu_smoothing.cpp
  eval/confusion_matrix.cpp
  eval/decoding.cpp
  eval/sentence_translation.cpp
  eval/seq2seq_checkpoint_report.cpp
  eval/seq2seq_evaluation.cpp
  eval/text_scoring.cpp
  eval/vit_checkpoint_report.cpp
  eval/vit_data.cpp
  eval/vit_evaluation.cpp
)
