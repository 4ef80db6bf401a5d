// A trained seq2seq model as a translator: the one API that checkpoint_eval (--translate,
// --interactive, --input), translate_server and programs linking the installed library use.
//
//   auto translator = dls::eval::Translator::load("runs/seq2seq");   // a run or one .pt file
//   for (const auto& t : translator.translate({"I am hungry.", "Where is the station?"}))
//     std::cout << (t.ok() ? t.text : "error: " + t.error) << "\n";   // "Tengo hambre."
//
// Sentences are normalised as the training data was, encoded (words or SentencePiece pieces),
// padded as the model was trained (<pad>, or EOS for --dlstudio-loss runs) and decoded
// together in batches. One sentence that cannot be translated (too long for the model's
// positional range, no words, invalid UTF-8) gets its `error`; the others go on.
// Not thread-safe: one Translator serves one thread at a time (translate_server funnels its
// requests through one worker).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/eval/decoding.h"

namespace dls::eval {

struct TranslatorOptions {
  std::string device = "cpu";                                      // cpu, cuda, auto
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved
  bool scores = true;  // also score each translation (one teacher-forced pass more per batch)
};

struct SentenceTranslation {
  std::string input;                       // as given
  std::vector<std::string> words;          // normalised source words
  std::vector<std::string> tokens;         // what the encoder reads: the words, or their pieces
  std::vector<std::string> unknown;        // source tokens not in the vocabulary (read as <unk>)
  std::vector<std::string> output_tokens;  // what the decoder wrote (words or pieces), no SOS/EOS
  std::vector<std::string> output_words;   // those as words (pieces joined), lowercase as trained
  std::string raw;                         // output_words joined by spaces: what BLEU scores
  std::string text;                        // for people: capitalised, punctuation as the source's
  double log_probability = NAN;            // sum over the output tokens and EOS (scores on)
  std::string error;                       // non-empty: not translated, the rest is empty
  bool ok() const { return error.empty(); }
};

// Attention weights of one translation, cropped to the real tokens; each tensor is
// [layers][H, rows, cols] in float on the CPU.
struct TranslationAttention {
  std::vector<std::string> source;          // "SOS", the source tokens, "EOS"
  std::vector<std::string> target;          // "SOS", the output tokens, "EOS"
  std::vector<torch::Tensor> encoder_self;  // [H, source, source]
  std::vector<torch::Tensor> decoder_self;  // [H, target, target]
  std::vector<torch::Tensor> cross;         // [H, target, source]
};

class Translator {
 public:
  // A checkpoint file, or a run directory (or its checkpoints/ folder): its best.pt when there
  // is one, else its newest checkpoint. Throws one line naming the file when it is not a
  // usable seq2seq checkpoint.
  static Translator load(const std::string& checkpoint_or_run, const TranslatorOptions& options = {});
  Translator(checkpoint::LoadedSeq2Seq loaded, std::string checkpoint_file, const TranslatorOptions& options);

  // One result per sentence, in order; decoded `decode.batch_size` sentences at a time.
  std::vector<SentenceTranslation> translate(const std::vector<std::string>& sentences,
                                             const DecodeOptions& decode = {});
  SentenceTranslation translate(const std::string& sentence, const DecodeOptions& decode = {});

  // Every layer's and head's self- and cross-attention for a translation that ok() (one
  // teacher-forced pass over its output). Throws for one that is not.
  TranslationAttention attention(const SentenceTranslation& translation);

  const checkpoint::LoadedSeq2Seq& model() const { return loaded_; }
  const std::string& checkpoint_file() const { return checkpoint_file_; }
  const torch::Device& device() const { return device_; }
  // The most source tokens one sentence may have: L minus SOS and EOS.
  int max_source_tokens() const;

 private:
  // Normalises and encodes `t.input` into `ids` ([L] source ids); sets t.error instead when
  // the sentence cannot be translated.
  void prepare(SentenceTranslation& t, std::vector<std::int64_t>& ids) const;
  // Fills log_probability for rows translated from `src` [N, L], `batch_size` rows per pass
  // (a pass holds [rows, L-1, V] log-probabilities).
  void score(const std::vector<SentenceTranslation*>& done, const torch::Tensor& src, std::int64_t batch_size);
  torch::Tensor target_ids(const std::vector<std::string>& output_tokens) const;  // [L]

  checkpoint::LoadedSeq2Seq loaded_;
  std::string checkpoint_file_;
  torch::Device device_;
  bool scores_;
};

}  // namespace dls::eval
