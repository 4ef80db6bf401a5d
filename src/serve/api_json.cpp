#include "dls/serve/api_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/layers/transformer_config.h"

namespace dls::serve {

namespace {

using nlohmann::json;

// The deepest nesting a request may have: its fields are at depth 1 and 2 ("sample"'s), so
// anything deeper is not a request.
constexpr int kMaxRequestDepth = 8;
// Values a request holds besides its sentences: its fields, "sample"'s, their keys' values.
constexpr std::size_t kFieldValues = 64;

// What one pass over the body's bytes finds before any document is built: its deepest
// nesting, how many values it holds (strings, numbers, literals, lists and objects; keys
// are not values), and a key given twice in one object; it stops once the body is past the
// limits. A 1 MiB body of 350,000 empty objects took nlohmann's callback parser 25 s
// (quadratic) and of lists 17 MB as a document; both are refused here, in linear time,
// before either.
struct BodyShape {
  int depth = 0;
  std::size_t values = 0;
  std::string repeated_key;  // the first key given twice in one object
};

BodyShape scan_body(const std::string& body, std::size_t max_values) {
  BodyShape shape;
  std::vector<char> open;  // the containers around the byte: '{' or '['
  // The keys of each object open around the byte (an empty set for a list), hashed: a body of
  // 300,000 keys took a minute when each was looked up in a list.
  std::vector<std::unordered_set<std::string>> keys;
  bool value_next = true;  // at the start, after '[', ':' or a list's ','
  bool key_next = false;   // in an object, after '{' or ','
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (value_next && c != ']') ++shape.values;
    // Past either limit the body is refused whatever follows: no need to read on.
    if (shape.values > max_values || shape.depth > kMaxRequestDepth) break;
    value_next = false;
    if (c == '"') {
      const std::size_t start = i;
      bool escaped = false;
      for (++i; i < body.size() && body[i] != '"'; ++i) {
        if (body[i] == '\\') ++i, escaped = true;  // an escape: the next byte is the escaped one
      }
      if (key_next && shape.repeated_key.empty() && !keys.empty()) {
        std::string key = body.substr(start + 1, i - start - 1);
        if (escaped) {
          try {
            key = json::parse(body.substr(start, i + 1 - start)).get<std::string>();  // "sent\u0065nces"
          } catch (const json::exception&) {
          }
        }
        if (!keys.back().insert(key).second) shape.repeated_key = key;
      }
      key_next = false;
    } else if (c == '{' || c == '[') {
      open.push_back(c);
      keys.emplace_back();
      shape.depth = std::max(shape.depth, static_cast<int>(open.size()));
      value_next = c == '[';
      key_next = c == '{';
    } else if (c == '}' || c == ']') {
      if (!open.empty()) open.pop_back(), keys.pop_back();
    } else if (c == ':') {
      value_next = true;
    } else if (c == ',') {
      value_next = !open.empty() && open.back() == '[';
      key_next = !open.empty() && open.back() == '{';
    }
  }
  return shape;
}

// The body as a JSON object of at most `max_values` values, or a 400 saying why not.
json parse_object(const std::string& body, std::size_t max_values) {
  const auto shape = scan_body(body, max_values);
  if (shape.depth > kMaxRequestDepth) {
    throw ApiError(400, "the request body nests lists or objects deeper than " + std::to_string(kMaxRequestDepth) +
                            " levels; a request has 2");
  }
  if (shape.values > max_values) {
    throw ApiError(400, "the request body holds more than " + std::to_string(max_values) +
                            " values, the most a request has (its sentences and fields)");
  }
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::parse_error& error) {
    // Where, and the one cause a client cannot see in its own text: the bytes of a string.
    const std::string what = error.what();
    const bool utf8 = what.find("ill-formed UTF-8") != std::string::npos;
    // "\ud83d" without its pair (text cut inside an emoji, as JavaScript's JSON.stringify
    // and Python's json.dumps write it): no character, so no text to translate.
    const bool surrogate = what.find("surrogate") != std::string::npos;
    throw ApiError(400, "the request body is not valid JSON" +
                            std::string(utf8        ? ": a string is not valid UTF-8"
                                        : surrogate ? ": a \\u escape is half a UTF-16 surrogate pair (text cut "
                                                      "inside a character such as an emoji?)"
                                                    : "") +
                            " (at byte " + std::to_string(error.byte) + ")");
  } catch (const json::exception&) {  // 1e999: out_of_range, which has no byte
    throw ApiError(400, "the request body is not valid JSON: a number too large for a double");
  }
  if (!parsed.is_object()) throw ApiError(400, "the request body must be a JSON object");
  if (!shape.repeated_key.empty()) {
    throw ApiError(400, "the request gives the field " + json(shape.repeated_key).dump() +
                            " twice; which one it means is not clear");
  }
  return parsed;
}

// A client's value as an error message quotes it: numbers, booleans, null and short strings
// as written, anything else by its kind and size, so that an error never echoes a large or
// deeply nested value back (serialising one recursed past the thread's stack).
std::string quoted(const json& value) {
  constexpr std::size_t kLongest = 40;
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    return text.size() <= kLongest ? value.dump(-1, ' ', false, json::error_handler_t::replace)
                                   : "a string of " + std::to_string(text.size()) + " bytes";
  }
  if (value.is_array()) return "a list of " + std::to_string(value.size()) + " items";
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " fields";
  return value.dump();
}

// A field the call does not know is refused, naming the ones it does: a misspelt option
// ("beem") would otherwise be ignored without a word.
void check_fields(const json& request, const std::vector<std::string>& known) {
  for (const auto& [key, value] : request.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (const auto& name : known) names += (names.empty() ? "\"" : ", \"") + name + "\"";
    throw ApiError(400, "no field " + quoted(json(key)) + " in this request (" + names + ")");
  }
}

int read_beam(const json& body, const ServeLimits& limits) {
  if (!body.contains("beam") || body["beam"].is_null()) return 1;
  const auto& beam = body["beam"];
  const std::string range = "\"beam\" must be between 0 and " + std::to_string(limits.max_beam) + ", not ";
  // Past 2^64 JSON's integer arrives as a float: out of range, not "not an integer".
  if (beam.is_number_float() && std::abs(beam.get<double>()) >= 1.8e19) throw ApiError(400, range + quoted(beam));
  if (!beam.is_number_integer())
    throw ApiError(400, "\"beam\" must be an integer (0 or 1: greedy, K > 1: beam search)");
  // Above 2^63 - 1 JSON's number is unsigned: compared as such, reported as the client wrote it.
  const bool in_range = beam.is_number_unsigned()
                            ? beam.get<unsigned long long>() <= static_cast<unsigned>(limits.max_beam)
                            : beam.get<long long>() >= 0 && beam.get<long long>() <= limits.max_beam;
  if (!in_range) throw ApiError(400, range + quoted(beam));
  return static_cast<int>(std::max<long long>(1, beam.get<long long>()));
}

// A number of `field` of `object` within [low, high] (absent or null: `fallback`).
double read_number(const json& object, const std::string& field, double low, double high, double fallback) {
  if (!object.contains(field) || object[field].is_null()) return fallback;
  const auto& value = object[field];
  if (!value.is_number() || !(value.get<double>() >= low && value.get<double>() <= high)) {
    std::ostringstream range;
    range << low << " to " << high;
    throw ApiError(400, "\"" + field + "\" must be a number from " + range.str() + ", not " + quoted(value));
  }
  return value.get<double>();
}

// "length_penalty" or "coverage_penalty" (GNMT's alpha and beta), with beam search only.
double read_beam_penalty(const json& request, const std::string& field, int beam) {
  const double value = read_number(request, field, 0.0, 10.0, 0.0);
  if (value != 0.0 && beam <= 1) throw ApiError(400, "\"" + field + "\" needs \"beam\" > 1");
  return value;
}

// A boolean `field` of `request` into `value` (absent or null: left as it is).
void read_flag(const json& request, const std::string& field, bool& value) {
  if (!request.contains(field) || request[field].is_null()) return;
  if (!request[field].is_boolean()) throw ApiError(400, "\"" + field + "\" must be true or false");
  value = request[field].get<bool>();
}

// What /translate and /attention both take: "beam", "replace_unk" and the beam's penalties.
void read_beam_options(const json& request, const ServeLimits& limits, DecodeSetting& decode) {
  decode.beam = read_beam(request, limits);
  read_flag(request, "replace_unk", decode.replace_unknown);
  decode.length_penalty = read_beam_penalty(request, "length_penalty", decode.beam);
  decode.coverage_penalty = read_beam_penalty(request, "coverage_penalty", decode.beam);
}

// "sample": true or {"temperature": T, "top_k": K, "top_p": P, "seed": S} (checkpoint_eval
// --sample's --temperature, --top-k, --top-p, --seed), instead of greedy or beam search.
void read_sampling(const json& request, DecodeSetting& decode) {
  if (!request.contains("sample") || request["sample"].is_null()) return;
  const auto& sample = request["sample"];
  if (sample.is_boolean()) {
    decode.sample = sample.get<bool>();
  } else if (sample.is_object()) {
    decode.sample = true;
    for (const auto& [key, value] : sample.items()) {
      if (key != "temperature" && key != "top_k" && key != "top_p" && key != "seed")
        throw ApiError(400, "\"sample\" has no field \"" + key + "\" (temperature, top_k, top_p, seed)");
    }
    decode.sampling.temperature = read_number(sample, "temperature", 0.0, 100.0, decode.sampling.temperature);
    decode.sampling.top_p = read_number(sample, "top_p", 0.0, 1.0, decode.sampling.top_p);
    decode.sampling.top_k = static_cast<std::int64_t>(read_number(sample, "top_k", 0.0, 1e9, 0.0));
    decode.sampling.seed = static_cast<std::uint64_t>(read_number(sample, "seed", 0.0, 9007199254740992.0, 0.0));
    for (const auto* whole : {"top_k", "seed"}) {
      if (sample.contains(whole) && !sample[whole].is_null() && !sample[whole].is_number_integer())
        throw ApiError(400, std::string("\"") + whole + "\" must be an integer, not " + quoted(sample[whole]));
    }
  } else {
    throw ApiError(400, "\"sample\" must be true, false or an object {temperature, top_k, top_p, seed}");
  }
  if (decode.sample && decode.beam > 1) throw ApiError(400, "\"sample\" and \"beam\" > 1: choose one way to decode");
}

void check_sentence(const std::string& sentence, const ServeLimits& limits, const std::string& which) {
  if (sentence.size() > limits.max_sentence_chars)
    throw ApiError(400, which + " has " + std::to_string(sentence.size()) + " bytes; at most " +
                            std::to_string(limits.max_sentence_chars) + " are accepted (--max-sentence-chars)");
}

// NaN (a score not measured) as null.
json number_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// [layers] of [H, rows, cols] -> [layer][head][row][col]
json weights_json(const std::vector<torch::Tensor>& layers) {
  json out = json::array();
  for (const auto& layer : layers) {
    const auto w = layer.to(torch::kFloat).contiguous();
    const auto heads = w.size(0), rows = w.size(1), cols = w.size(2);
    const float* data = w.data_ptr<float>();
    json layer_json = json::array();
    for (std::int64_t h = 0; h < heads; ++h) {
      json head = json::array();
      for (std::int64_t r = 0; r < rows; ++r) {
        json row = json::array();
        for (std::int64_t c = 0; c < cols; ++c) row.push_back(round_significant(data[(h * rows + r) * cols + c], 5));
        head.push_back(std::move(row));
      }
      layer_json.push_back(std::move(head));
    }
    out.push_back(std::move(layer_json));
  }
  return out;
}

// [layers][H, rows] -> [layer][head][row]: each row's weight on keys not drawn.
json rest_json(const std::vector<torch::Tensor>& layers) {
  json out = json::array();
  for (const auto& layer : layers) {
    const auto w = layer.to(torch::kFloat).contiguous();
    const float* data = w.data_ptr<float>();
    json layer_json = json::array();
    for (std::int64_t h = 0; h < w.size(0); ++h) {
      json head = json::array();
      for (std::int64_t r = 0; r < w.size(1); ++r) head.push_back(round_significant(data[h * w.size(1) + r], 5));
      layer_json.push_back(std::move(head));
    }
    out.push_back(std::move(layer_json));
  }
  return out;
}

json translation_json(const eval::SentenceTranslation& t) {
  json out = {{"input", t.input}};
  if (!t.ok()) {
    out["error"] = t.error;
    return out;
  }
  out["translation"] = t.text;
  out["raw"] = t.raw;
  out["normalised"] = data::join_words(t.words);
  out["unknown_words"] = t.unknown;
  out["log_probability"] = number_or_null(t.log_probability);
  if (!t.note.empty()) out["note"] = t.note;  // longer than the model was trained on: how it was translated
  return out;
}

}  // namespace

double round_significant(double value, int digits) {
  if (!std::isfinite(value) || value == 0) return value;
  char text[32];
  std::snprintf(text, sizeof(text), "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

TranslateCall parse_translate_call(const std::string& body, const ServeLimits& limits) {
  const json request = parse_object(body, limits.max_sentences + kFieldValues);
  check_fields(request, {"sentences", "beam", "n_best", "alignment", "replace_unk", "length_penalty",
                         "coverage_penalty", "sample"});
  if (!request.contains("sentences")) throw ApiError(400, "missing field \"sentences\" (a list of strings)");
  const auto& sentences = request["sentences"];
  if (!sentences.is_array()) throw ApiError(400, "\"sentences\" must be a list of strings");
  if (sentences.empty()) throw ApiError(400, "\"sentences\" is empty: give at least one sentence");
  if (sentences.size() > limits.max_sentences)
    throw ApiError(400, std::to_string(sentences.size()) + " sentences; at most " +
                            std::to_string(limits.max_sentences) + " per request (--max-sentences)");
  TranslateCall call;
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    if (!sentences[i].is_string()) throw ApiError(400, "sentence " + std::to_string(i + 1) + " is not a string");
    call.sentences.push_back(sentences[i].get<std::string>());
    check_sentence(call.sentences.back(), limits, "sentence " + std::to_string(i + 1));
  }
  read_beam_options(request, limits, call.decode);
  const int beam = call.decode.beam;
  if (request.contains("n_best") && !request["n_best"].is_null()) {
    const auto& n = request["n_best"];
    if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > beam) {
      throw ApiError(
          400, "\"n_best\" must be an integer from 1 to the beam (" + std::to_string(beam) + "), not " + quoted(n));
    }
    call.n_best = static_cast<int>(n.get<long long>());
  }
  read_flag(request, "alignment", call.alignment);
  read_sampling(request, call.decode);
  return call;
}

AttentionCall parse_attention_call(const std::string& body, const ServeLimits& limits) {
  const json request = parse_object(body, kFieldValues);
  check_fields(request, {"sentence", "beam", "replace_unk", "length_penalty", "coverage_penalty"});
  if (!request.contains("sentence")) throw ApiError(400, "missing field \"sentence\" (a string)");
  if (!request["sentence"].is_string()) throw ApiError(400, "\"sentence\" must be a string");
  AttentionCall call;
  call.sentence = request["sentence"].get<std::string>();
  check_sentence(call.sentence, limits, "the sentence");
  read_beam_options(request, limits, call.decode);
  return call;
}

std::string translate_answer(const BatchResult& result, int beam, double total_ms, int n_best,
                             const std::vector<std::string>& alignments) {
  json translations = json::array();
  for (std::size_t i = 0; i < result.translations.size(); ++i) {
    const auto& t = result.translations[i];
    auto one = translation_json(t);
    if (t.ok() && n_best > 1) {
      json list = json::array();
      for (std::size_t k = 0; k < t.n_best.size() && k < static_cast<std::size_t>(n_best); ++k) {
        const auto& a = t.n_best[k];
        list.push_back(
            {{"translation", a.text}, {"raw", a.raw}, {"log_probability", number_or_null(a.log_probability)}});
      }
      one["n_best"] = std::move(list);
    }
    if (t.ok() && i < alignments.size()) one["alignment"] = alignments[i];
    translations.push_back(std::move(one));
  }
  const json answer = {
      {"translations", std::move(translations)},
      {"beam", beam},
      {"timings", {{"queue_ms", result.queue_ms}, {"decode_ms", result.decode_ms}, {"total_ms", total_ms}}},
      {"batch_sentences", result.batch_sentences}};
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string attention_answer(const eval::SentenceTranslation& t, const eval::TranslationAttention& maps, int beam) {
  json answer = translation_json(t);
  answer["beam"] = beam;
  answer["source"] = maps.source;
  answer["target"] = maps.target;
  answer["written"] = maps.written;
  answer["encoder_self"] = weights_json(maps.encoder_self);
  answer["decoder_self"] = weights_json(maps.decoder_self);
  answer["cross"] = weights_json(maps.cross);
  answer["rest"] = {{"encoder_self", rest_json(maps.encoder_self_rest)},
                    {"decoder_self", rest_json(maps.decoder_self_rest)},
                    {"cross", rest_json(maps.cross_rest)}};
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string model_answer(const eval::Translator& translator) {
  const auto& loaded = translator.model();
  const auto& config = loaded.info.settings.model;
  const auto& state = loaded.info.state;
  const auto& languages = loaded.info.settings.data;
  json answer = {{"kind", "seq2seq"},
                 {"checkpoint", translator.checkpoint_file()},
                 {"summary", config.summary()},
                 {"encoder_layers", config.num_encoders()},
                 {"decoder_layers", config.num_decoders()},
                 {"max_source_tokens", translator.max_source_tokens()},
                 // How a longer sentence is translated: "parts" (the dlstudio layout) or "whole"
                 // (up to max_whole_source_tokens; longer ones in parts too).
                 {"long_sentences", translator.splits_long_sentences() ? "parts" : "whole"},
                 {"max_whole_source_tokens", translator.max_whole_source_tokens()},
                 {"tokens", loaded.english_subwords ? "sentencepiece" : "words"},
                 {"source_vocabulary_size", loaded.english.size()},
                 {"target_vocabulary_size", loaded.spanish.size()},
                 // The run's languages (--src-lang/--tgt-lang/--reverse; a checkpoint from before
                 // them: en -> es), with the names the C++ printouts use (data/languages.h).
                 {"source_language", languages.source_language()},
                 {"target_language", languages.target_language()},
                 {"source_language_name", data::language_name(languages.source_language())},
                 {"target_language_name", data::language_name(languages.target_language())},
                 {"device", translator.device().str()},
                 {"scores",
                  {{"epoch", state.file_epoch()},  // completed (or in progress)
                   {"global_step", state.global_step},
                   {"val_loss", number_or_null(loaded.info.val_loss)},
                   {"val_bleu", number_or_null(loaded.info.val_bleu)}}}};
  answer.update(transformer_fields(config.transformer()));
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

json transformer_fields(const TransformerConfig& transformer) {
  return {{"variant", to_string(transformer.variant())},
          {"layout", to_string(transformer.layout())},
          {"embedding_size", transformer.embedding_size()},
          {"heads", transformer.num_heads()}};
}

std::string health_answer(std::size_t queued) { return json({{"status", "ok"}, {"queued", queued}}).dump(); }

std::string error_answer(const std::string& message) {
  return json({{"error", message.substr(0, message.find('\n'))}}).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace dls::serve
