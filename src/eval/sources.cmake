# Sources of src/eval, relative to src/.
list(APPEND DLS_SOURCES
  eval/bleu.cpp
  eval/bleu_counts.cpp
  eval/bleu_smoothing.cpp
  eval/chrf.cpp
  eval/confusion_matrix.cpp
  eval/decoding.cpp
  eval/word_alignment.cpp
  eval/unknown_words.cpp
  eval/long_sentences.cpp
  eval/sacrebleu.cpp
  eval/translator.cpp
  eval/pair_translation.cpp
  eval/seq2seq_evaluation.cpp
  eval/tokenizer_13a.cpp
  eval/vit_predictions.cpp
  eval/vit_evaluation.cpp
  eval/lm_evaluation.cpp
  eval/lm_generation.cpp
  eval/sampling.cpp
  eval/image_classifier.cpp
)
