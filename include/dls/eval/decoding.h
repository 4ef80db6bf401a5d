// Translating with a trained model, a transformer or an RNN encoder-decoder
// (models/translation_model.h): greedy and beam-search decoding, both
// autoregressive (each chosen word is fed back), and DLStudio's one-shot decoding for
// comparison (transformers only: the decoder is given SOS followed by EOS everywhere and every position is
// read at once -- what DLStudio's evaluation does); sampling (top-k, top-p, temperature:
// back-translation's noisy outputs); beam search's n best; and an ensemble of models whose
// log-probabilities are averaged at every step.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/eval/sampling.h"
#include "dls/models/translation_model.h"
#include "dls/util/enum_names.h"

namespace dls::eval {

enum class DecodeMethod { kGreedy, kBeam, kDLStudioOneShot, kSample };

struct DecodeOptions {
  DecodeMethod method = DecodeMethod::kGreedy;
  std::int64_t beam_size = 4;   // kBeam
  double length_penalty = 0.0;  // kBeam: GNMT's alpha, score / ((5 + n) / 6)^alpha; 0 = none
  std::int64_t n_best = 1;      // kBeam: hypotheses returned per sentence, best first (at most beam_size)
  // kBeam: GNMT's coverage penalty beta (0 = none). The finished beams are ranked by
  // score / lp + beta * sum_i log(min(sum_j a_ji, 1)) over the source tokens i, a_ji the
  // attention of the step that wrote word j (a teacher-forced pass of the first model: a
  // transformer's last layer, heads averaged), so that a translation that leaves source
  // words unattended ranks lower (OpenNMT's --coverage_penalty wu --beta, applied at the end).
  double coverage_penalty = 0.0;
  // kSample: each word drawn from the model's distribution as `sampling` says (temperature,
  // top-k, top-p; a temperature <= 0 is greedy). The draws are a function of sampling.seed,
  // the sentence's row in the call and the position, so the same rows and seed give the same
  // samples whatever the batch size or workers.
  SamplingOptions sampling;
  // After decoding, not by it: each <unk> written replaced by the source word aligned to it
  // (unknown_words.h; OpenNMT's -replace_unk), by Translator::translate and by
  // translate_and_score given the source words; this file's decode_batch() and translate()
  // leave <unk>.
  bool replace_unknown = false;
  std::int64_t batch_size = 256;  // sentences decoded together (translate())
  // Positions of a translation, SOS and EOS included: at most max_length - 1 words follow
  // SOS (0: the model's L). Another value only for the layouts that are not dlstudio
  // (DecoderSession), e.g. for a source longer than the training length.
  std::int64_t max_length = 0;
  // > 1: a batch's sentences decoded in this many chunks concurrently, one thread each
  // (util::for_each_chunk); the same translations (each sentence is decoded on its own).
  int workers = 1;
  // kGreedy, kSample: also sum the chosen words' log-probabilities (Hypothesis::log_probability,
  // NaN without): a log-sum-exp over the vocabulary per row and step, which scoring needs and
  // BLEU evaluation does not. Beam search always has them.
  bool scores = false;
  // Asked before each decoding step (set: on every chunk's thread): true stops the decoding
  // with DecodingCancelled. translate_server's worker leaves a batch whose every client has
  // stopped waiting (504) instead of decoding on for nobody.
  std::function<bool()> cancelled;
};

// Decoding stopped because DecodeOptions::cancelled said so.
class DecodingCancelled : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One translation per source row: the word ids after SOS, EOS excluded.
using TokenIds = std::vector<std::int64_t>;

// One of beam search's n best, or the translation of greedy decoding or sampling: its words
// and the sum of their log-probabilities (the EOS's included when it was written), as the
// decoding scored them (an ensemble: its averaged log-probabilities; greedy decoding and
// sampling without DecodeOptions::scores, DLStudio's one-shot decoding: NaN).
struct Hypothesis {
  TokenIds words;
  double log_probability = 0.0;
};

// The models an ensemble decodes with: one, or several with the same vocabularies, whose
// log-probabilities are averaged at each step (as fairseq and Marian ensemble checkpoints).
using Models = std::vector<TranslationModel>;

// src [B, S] -> B translations (S = L, or any length for the layouts that are not dlstudio). Runs under NoGradGuard;
// the model is put in eval mode and restored afterwards.
std::vector<TokenIds> decode_batch(const TranslationModel& model, const torch::Tensor& src, std::int64_t sos,
                                   std::int64_t eos, const DecodeOptions& options = {});

// All rows of src [N, L], in batches of options.batch_size.
std::vector<TokenIds> translate(const TranslationModel& model, const torch::Tensor& src, std::int64_t sos,
                                std::int64_t eos, const DecodeOptions& options = {});

// All rows of src [N, L] with an ensemble, each row's hypotheses best first: options.n_best
// of beam search's (fewer when the vocabulary is smaller), or the one of the other methods.
std::vector<std::vector<Hypothesis>> translate_n_best(const Models& models, const torch::Tensor& src, std::int64_t sos,
                                                      std::int64_t eos, const DecodeOptions& options = {});

inline const util::EnumNames<DecodeMethod> kDecodeMethodNames("decoding", {{DecodeMethod::kGreedy, "greedy"},
                                                                           {DecodeMethod::kBeam, "beam"},
                                                                           {DecodeMethod::kDLStudioOneShot, "dlstudio"},
                                                                           {DecodeMethod::kSample, "sample"}});
inline std::string to_string(DecodeMethod method) { return kDecodeMethodNames.name(method); }

}  // namespace dls::eval
