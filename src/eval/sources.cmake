# Sources of src/eval, relative to src/.
list(APPEND DLS_SOURCES
  eval/bleu.cpp
  eval/bleu_counts.cpp
  eval/bleu_smoothing.cpp
  eval/confusion_matrix.cpp
  eval/decoding.cpp
  eval/seq2seq_evaluation.cpp
  eval/vit_evaluation.cpp
)
