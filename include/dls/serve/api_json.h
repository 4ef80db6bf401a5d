// The JSON of translate_server's API (docs/serving.md): reading the request bodies, checked
// against the limits, and writing the answers. Every error is {"error": "one line"}.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dls/eval/translator.h"
#include "dls/layers/transformer_config.h"
#include "dls/serve/batcher.h"
#include "dls/serve/serve_settings.h"

namespace dls::serve {

// A request the API refuses: its HTTP status (400, 404, 405, 413, ...) and one line saying why.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// POST /translate {"sentences": ["..."], "beam": K, "n_best": N, "alignment": true,
// "replace_unk": true, "length_penalty": A, "coverage_penalty": B, "sample": {"temperature":
// T, "top_k": K, "top_p": P, "seed": S}}; beam absent, 0 or 1: greedy; n_best (at most K) the
// N best of beam search; alignment: each translation's word alignment; replace_unk: each
// <unk> replaced by its aligned source word (DecodeOptions::replace_unknown); the penalties
// with beam search only; sample (true, or an object with any of its fields) instead of
// greedy or beam search.
struct TranslateCall {
  std::vector<std::string> sentences;
  DecodeSetting decode;
  int n_best = 1;
  bool alignment = false;
};
// POST /attention {"sentence": "...", "beam": K, "replace_unk": true, "length_penalty": A,
// "coverage_penalty": B}: the sentence translated as /translate translates it with these
// fields (the page's choices), then its maps; the maps' axes keep the model's own tokens.
struct AttentionCall {
  std::string sentence;
  DecodeSetting decode;
};

// Throw ApiError(400) for a body that is not JSON, a missing or wrong-typed field, or a
// request over the limits (too many sentences, one too long, too large a beam).
TranslateCall parse_translate_call(const std::string& body, const ServeLimits& limits);
AttentionCall parse_attention_call(const std::string& body, const ServeLimits& limits);

// {"translations": [...], "beam": K, "timings": {...}, "batch_sentences": N}; a translation
// of a sentence longer than the model was trained on has a "note" saying how it was made;
// n_best > 1: each translation's "n_best" (at most n_best of its SentenceTranslation::n_best);
// `alignments` (one per translation, "0-0 1-2"): each translation's "alignment".
std::string translate_answer(const BatchResult& result, int beam, double total_ms, int n_best = 1,
                             const std::vector<std::string>& alignments = {});
// {"input", "translation", "raw", "unknown_words", "source", "target", "written",
//  "encoder_self", "decoder_self", "cross"}: weights [layer][head][row][col], 5 significant
//  digits, a decoder row per step named by "written" (TranslationAttention); "rest":
//  {"encoder_self", "decoder_self", "cross"}: [layer][head][row], each row's weight on keys
//  not drawn (TranslationAttention).
std::string attention_answer(const eval::SentenceTranslation& translation, const eval::TranslationAttention& maps,
                             int beam);
// GET /model: {"kind": "seq2seq"}, the checkpoint, its model settings, vocabulary sizes, how
// a sentence longer than max_source_tokens is translated ("long_sentences": "parts" or
// "whole"), the run's languages ("source_language": "es", "source_language_name": "Spanish",
// ...) and scores.
std::string model_answer(const eval::Translator& translator);
// The encoder's settings both kinds of GET /model report: variant, layout, embedding_size, heads.
nlohmann::json transformer_fields(const TransformerConfig& transformer);
std::string health_answer(std::size_t queued);
std::string error_answer(const std::string& message);

// `value` rounded to `digits` significant digits (the attention weights: smaller JSON).
double round_significant(double value, int digits);

}  // namespace dls::serve
