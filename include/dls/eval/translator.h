// A trained seq2seq model as a translator: the one API that checkpoint_eval (--translate,
// --interactive, --input), translate_server and programs linking the installed library use.
//
//   auto translator = dls::eval::Translator::load("runs/seq2seq");   // a run or one .pt file
//   for (const auto& t : translator.translate({"I am hungry.", "Where is the station?"}))
//     std::cout << (t.ok() ? t.text : "error: " + t.error) << "\n";   // "Tengo hambre."
//
// Sentences are normalised as the training data was, encoded (words or SentencePiece pieces),
// padded as the model was trained (<pad>, or EOS for --dlstudio-loss runs) and decoded
// together in batches. A sentence longer than the model was trained on is translated too
// (long_sentences.h): whole by the positionwise and vaswani layouts, in parts that fit by
// the dlstudio layout; its `note` says which. One sentence that cannot be translated (no
// words, invalid UTF-8) gets its `error`; the others go on.
// Not thread-safe: one Translator serves one thread at a time (translate_server funnels its
// requests through one worker).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/eval/decoding.h"
#include "dls/eval/long_sentences.h"

namespace dls::eval {

struct TranslatorOptions {
  // cpu, cuda, auto; "": where the loaded model is (a trainer scoring its own model, which may
  // be on another GPU than cuda:0).
  std::string device = "cpu";
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved
  bool scores = true;  // also score each translation (the decoding's log-probabilities; a teacher-forced pass for
                       // one-shot decoding and ensembles)
  // More checkpoints decoded with the loaded one as an ensemble (their log-probabilities
  // averaged at each step); each must have the same vocabularies and length L. Scores and
  // attention stay the loaded model's.
  std::vector<std::string> ensemble;
};

// One of a sentence's n best translations (DecodeOptions::n_best, beam search), best first.
struct Alternative {
  std::string text;              // for people, as SentenceTranslation::text
  std::string raw;               // as SentenceTranslation::raw
  double log_probability = NAN;  // the beam's sum of log-probabilities (the ensemble's mean)
};

// A source word and the target word it is aligned to (0-based word positions).
struct AlignmentPoint {
  int source = 0;
  int target = 0;
  bool operator==(const AlignmentPoint& other) const { return source == other.source && target == other.target; }
};

// One part of a sentence translated in parts (the dlstudio layout, a sentence too long for it).
struct TranslatedPart {
  std::vector<std::string> tokens;         // its source tokens, at most max_source_tokens()
  std::vector<std::string> output_tokens;  // their translation
};

// SentenceTranslation::error of a sentence in which normalisation leaves no word: a blank one,
// or one of punctuation and symbols alone ("* * *", "...", an emoji).
inline constexpr const char* kNoWordsError = "no words left after normalisation";

struct SentenceTranslation {
  std::string input;                       // as given
  std::vector<std::string> words;          // normalised source words
  std::vector<std::string> tokens;         // what the encoder reads: the words, or their pieces
  std::vector<std::string> unknown;        // source tokens not in the vocabulary (read as <unk>)
  std::vector<std::string> output_tokens;  // what the decoder wrote (words or pieces), no SOS/EOS
  std::vector<std::string> output_words;   // those as words (pieces joined), lowercase as trained; with
                                           // DecodeOptions::replace_unknown, each <unk> there (not in
                                           // output_tokens) replaced by its aligned source word
  std::string raw;                         // output_words joined by spaces: what BLEU scores
  std::string text;                        // for people: capitalised, punctuation as the source's
  double log_probability = NAN;            // sum over the output tokens and EOS (scores on; parts: their sum)
  // Non-empty for a sentence longer than the model was trained on: how it was translated
  // ("20 words, more than the 8 ...: translated in 3 parts, ...").
  std::string note;
  std::vector<TranslatedPart> parts;  // translated in parts: each, in order (empty: translated whole)
  // DecodeOptions::n_best > 1 with beam search: the n best, best first; the first is this
  // translation. A sentence translated in parts has only its own (the parts' best joined).
  std::vector<Alternative> n_best;
  std::string error;  // non-empty: not translated, the rest is empty
  bool ok() const { return error.empty(); }
};

// Attention weights of one translation, cropped to the real tokens; each tensor is
// [layers][H, rows, cols] in float on the CPU. The encoder's row i is source token i's query.
// The decoder's maps have a row per decoding step, named by the token it writes (the
// lecture's "output row k predicts word k"; the rows of Bahdanau's alignment figures and of
// fairseq's and Marian's alignments): `written`, the output then "EOS". No step reads the EOS,
// so there is no row for it. A translation in parts: each part's maps along the diagonal (a
// part attends only to itself), zero elsewhere.
struct TranslationAttention {
  std::vector<std::string> source;  // "SOS", the source tokens, "EOS": the encoder's rows, the keys of both
  // The token each decoding step reads -- "SOS", then the output but its last -- the decoder
  // self-attention's keys; and the token it writes -- the output, then "EOS" when it ended
  // (a translation that filled every position has none). One per step, in the same order.
  std::vector<std::string> target, written;
  std::vector<torch::Tensor> encoder_self;  // [H, source, source]
  std::vector<torch::Tensor> decoder_self;  // [H, steps, steps]: written (rows) by target (keys)
  std::vector<torch::Tensor> cross;         // [H, steps, source]: written (rows) by source
  // Per layer [H, rows] beside each of the three: the weight a row gives to keys not drawn --
  // the padding after the sentence, which DLStudio's layout attends to, and in its decoder the
  // zeroed positions after the row's own (AttentionTrace). 0 where the drawn weights sum to 1.
  std::vector<torch::Tensor> encoder_self_rest, decoder_self_rest, cross_rest;
  // An RNN encoder-decoder's: no self-attention, and one attention per decoding step -- the
  // alignment table of the attention notes -- as `cross`, one layer of one head.
  bool recurrent = false;
};

class Translator {
 public:
  using TokenList = std::vector<std::string>;

  // A checkpoint file, or a run directory (or its checkpoints/ folder): its best.pt when there
  // is one, else its newest checkpoint, of this run (checkpoint::open_run_checkpoint(), the rule
  // of every program that translates). Throws one line naming the file when it is not a usable
  // seq2seq checkpoint.
  static Translator load(const std::string& checkpoint_or_run, const TranslatorOptions& options = {});
  // From a checkpoint opened already (a program that read its kind first reads the file once).
  static Translator load(const checkpoint::CheckpointReader& reader, const TranslatorOptions& options = {});
  Translator(checkpoint::LoadedSeq2Seq loaded, std::string checkpoint_file, const TranslatorOptions& options);

  // One result per sentence, in order; decoded `decode.batch_size` sentences at a time.
  std::vector<SentenceTranslation> translate(const std::vector<std::string>& sentences,
                                             const DecodeOptions& decode = {});
  // translate({"I am hungry.", "Where is the station?"}): without it the braced list would
  // match the two overloads around it (std::string has a constructor from two pointers).
  std::vector<SentenceTranslation> translate(std::initializer_list<std::string> sentences,
                                             const DecodeOptions& decode = {}) {
    return translate(std::vector<std::string>(sentences), decode);
  }
  SentenceTranslation translate(const std::string& sentence, const DecodeOptions& decode = {});

  // Every layer's and head's self- and cross-attention for a translation that ok() (one
  // teacher-forced pass over its output). Throws for one that is not.
  TranslationAttention attention(const SentenceTranslation& translation);

  // Word alignment of a translation that ok(): each output word with the source word the last
  // decoder layer's cross-attention (its heads averaged) weighs most, as fairseq's
  // --print-alignment and Marian's --alignment 'hard' read it; subword pieces are merged to
  // their words. Sorted by target word. Throws for one that is not ok().
  std::vector<AlignmentPoint> alignment(const SentenceTranslation& translation);

  // Throws std::invalid_argument, one line, for decoding this model cannot do (DLStudio's
  // one-shot decoding of an RNN). translate() checks too; a program checks before it starts.
  void check_decoding(const DecodeOptions& decode) const;

  const checkpoint::LoadedSeq2Seq& model() const { return loaded_; }
  // The checkpoints decoded as an ensemble with model(): none unless TranslatorOptions::ensemble.
  const std::vector<std::string>& ensemble_files() const { return ensemble_files_; }
  // The file loaded; checkpoint::progress_summary(model().info) says how far its run
  // had trained ("epoch 3, validation BLEU 0.210, loss 2.31").
  const std::string& checkpoint_file() const { return checkpoint_file_; }
  const torch::Device& device() const { return device_; }
  // The source tokens the model was trained on at most (L minus SOS and EOS), and so reads
  // at once: a longer sentence is decoded whole or in parts (splits_long_sentences()).
  int max_source_tokens() const;
  // The tokens the encoder would read for `sentence` (words or pieces; 0 when it has none):
  // what translate_server's --max-batch-tokens counts. Reads no model state: safe to call
  // from any thread while another translates.
  std::size_t count_source_tokens(const std::string& sentence) const;
  // True for the dlstudio layout, whose weights span exactly L positions: a longer sentence
  // is translated in parts. Otherwise it is decoded whole, up to max_whole_source_tokens().
  bool splits_long_sentences() const;
  // The longest sentence (in source tokens) decoded whole by a layout that reads any length:
  // kWholeSentenceFactor times what the model was trained on; a longer one is translated in
  // parts of at most max_source_tokens() as the dlstudio layout's are. Decoding whole costs
  // time and memory quadratic in the length, and the model never saw such positions: a
  // 100,000-word line asked for 80 GB. 0 for the dlstudio layout (always in parts).
  int max_whole_source_tokens() const;
  static constexpr int kWholeSentenceFactor = 4;

 private:
  // Normalises and encodes `t.input` into t.words and t.tokens; sets t.error instead when the
  // sentence cannot be translated.
  void prepare(SentenceTranslation& t) const;
  // Source ids [max(L, tokens + 2)] as the model was trained: SOS, tokens, EOS, padding to L.
  // Whether the decoding's own sums of log-probabilities are the scores (one model; greedy,
  // beam or sampling): the teacher-forced pass over each translation (log_probabilities)
  // gives the same numbers for ~17 ms more per sentence (cpu preset), and remains for
  // DLStudio's one-shot decoding and ensembles (whose scores are the first model's).
  bool decoded_scores_apply(const DecodeOptions& decode) const;
  std::vector<std::int64_t> source_ids(const std::vector<std::string>& tokens,
                                       std::vector<std::string>* unknown = nullptr) const;
  // A sentence longer than L - 2 tokens (dlstudio layout) or than max_whole_source_tokens()
  // (the others): `split` into parts that fit (long_sentences.h), t.parts and t.note set;
  // returns the parts' source ids, [L] each.
  std::vector<std::vector<std::int64_t>> split_rows(SentenceTranslation& t, SplitSource& split) const;
  // DecodeOptions::replace_unknown: the word alignment of each output token list (a row's, a
  // part's, a sentence's decoded whole) that holds <unk>, by its address.
  using UnknownAlignments = std::map<const TokenList*, std::vector<AlignmentPoint>>;
  static std::int64_t batch_rows(const DecodeOptions& decode);  // at least 1
  // Source tokens as words (pieces joined).
  std::vector<std::string> source_words(const TokenList& tokens) const;
  // Output tokens as words (pieces joined), each <unk> in `aligned` replaced by its word of `source`'s.
  std::vector<std::string> output_words(const TokenList& tokens, const UnknownAlignments& aligned,
                                        const TokenList& source) const;
  // After decoding: t's output words, raw and display text (in parts: from those of `split`).
  void finish(SentenceTranslation& t, const SplitSource& split, const UnknownAlignments& aligned) const;
  // A sentence longer than L - 2 tokens in a layout that reads any length: decoded alone,
  // up to decode_positions() positions; returns its hypotheses (and adds its output's
  // alignment to `aligned` when DecodeOptions::replace_unknown asks for it).
  std::vector<Hypothesis> translate_whole(SentenceTranslation& t, const DecodeOptions& decode,
                                          UnknownAlignments& aligned);
  // log p of each output (its tokens and the EOS after them, when it fitted) given the
  // source rows `src` [N, S], `batch_size` rows per pass (a pass holds [rows, T-1, V]
  // log-probabilities); targets of max(L, tokens + 2) positions, at most `max_length`.
  std::vector<double> log_probabilities(const torch::Tensor& src, const std::vector<const TokenList*>& outputs,
                                        std::int64_t max_length, std::int64_t batch_size);
  torch::Tensor target_ids(const TokenList& output_tokens, std::int64_t max_length) const;  // [T]
  // The maps of one source and its output, as attention() describes.
  TranslationAttention attention_of(const TokenList& tokens, const TokenList& output);

  // The decoding of rows src [N, L] by every model: each row's hypotheses, best first.
  std::vector<std::vector<Hypothesis>> decode(const torch::Tensor& src, const DecodeOptions& decode) const;
  // DecodeOptions::replace_unknown: the alignments of t's n best `outputs` that hold <unk>,
  // from one teacher-forced pass over all of them.
  UnknownAlignments n_best_alignments(const SentenceTranslation& t, const std::vector<TokenList>& outputs,
                                      const DecodeOptions& decode) const;
  // A decoded hypothesis's words, raw and display text, for `t`'s source (its <unk> replaced
  // where `aligned` has its tokens).
  Alternative alternative(const SentenceTranslation& t, const TokenList& tokens,
                          const UnknownAlignments& aligned) const;

  checkpoint::LoadedSeq2Seq loaded_;
  std::vector<std::string> ensemble_files_;
  Models models_;  // loaded_.model, then the ensemble's
  std::string checkpoint_file_;
  torch::Device device_;
  bool scores_;
};

}  // namespace dls::eval
