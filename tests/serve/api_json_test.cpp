// The API's JSON: request bodies read and checked against the limits (each refusal a 400
// with one line), answers written as docs/serving.md shows them.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "dls/serve/api_json.h"

namespace dls::serve {
namespace {

ServeLimits small_limits() {
  ServeLimits limits;
  limits.max_sentences = 3;
  limits.max_sentence_chars = 10;
  limits.max_beam = 8;
  return limits;
}

// The status and message of the ApiError that parsing `body` throws.
std::pair<int, std::string> refusal(const std::string& body, bool attention = false) {
  try {
    if (attention) {
      parse_attention_call(body, small_limits());
    } else {
      parse_translate_call(body, small_limits());
    }
  } catch (const ApiError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

TEST(ApiJson, ReadsTranslateAndAttentionCalls) {
  const auto call = parse_translate_call(R"({"sentences": ["I am.", "Go!"], "beam": 4})", small_limits());
  EXPECT_EQ(call.sentences, (std::vector<std::string>{"I am.", "Go!"}));
  EXPECT_EQ(call.decode.beam, 4);
  EXPECT_FALSE(call.decode.sample);
  for (const char* greedy : {R"({"sentences": ["a"]})", R"({"sentences": ["a"], "beam": 0})",
                             R"({"sentences": ["a"], "beam": 1})", R"({"sentences": ["a"], "beam": null})"})
    EXPECT_EQ(parse_translate_call(greedy, small_limits()).decode.beam, 1) << greedy;
  const auto penalised = parse_translate_call(
      R"({"sentences": ["a"], "beam": 4, "length_penalty": 0.6, "coverage_penalty": 0.2})", small_limits());
  EXPECT_DOUBLE_EQ(penalised.decode.length_penalty, 0.6);
  EXPECT_DOUBLE_EQ(penalised.decode.coverage_penalty, 0.2);
  const auto sampled = parse_translate_call(
      R"({"sentences": ["a"], "sample": {"temperature": 0.7, "top_k": 20, "top_p": 0.9, "seed": 42}})", small_limits());
  EXPECT_TRUE(sampled.decode.sample);
  EXPECT_DOUBLE_EQ(sampled.decode.sampling.temperature, 0.7);
  EXPECT_EQ(sampled.decode.sampling.top_k, 20);
  EXPECT_DOUBLE_EQ(sampled.decode.sampling.top_p, 0.9);
  EXPECT_EQ(sampled.decode.sampling.seed, 42u);
  const auto defaults = parse_translate_call(R"({"sentences": ["a"], "sample": true})", small_limits());
  EXPECT_TRUE(defaults.decode.sample);
  EXPECT_DOUBLE_EQ(defaults.decode.sampling.temperature, 1.0);
  const auto one = parse_attention_call(R"({"sentence": "Hi.", "beam": 2})", small_limits());
  EXPECT_EQ(one.sentence, "Hi.");
  EXPECT_EQ(one.decode.beam, 2);
  EXPECT_FALSE(one.decode.replace_unknown);
  // /attention translates as /translate does with the same fields (the page's choices).
  const auto chosen = parse_attention_call(
      R"({"sentence": "Hi.", "beam": 3, "replace_unk": true, "length_penalty": 0.6, "coverage_penalty": 0.2})",
      small_limits());
  EXPECT_TRUE(chosen.decode.replace_unknown);
  EXPECT_DOUBLE_EQ(chosen.decode.length_penalty, 0.6);
  EXPECT_DOUBLE_EQ(chosen.decode.coverage_penalty, 0.2);
}

TEST(ApiJson, RefusesBadBodiesWithOneLine400) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "the request body is not valid JSON (at byte 2)"},
      {"{\"sentences\": [\"caf\xe9\"]}", "not valid JSON: a string is not valid UTF-8 (at byte 21)"},
      {R"({"sentences": ["Ich \ud83d sehe"]})", "not valid JSON: a \\u escape is half a UTF-16 surrogate pair"},
      {"[1, 2]", "must be a JSON object"},
      {"{}", "missing field \"sentences\""},
      {R"({"sentences": "a"})", "must be a list of strings"},
      {R"({"sentences": []})", "is empty"},
      {R"({"sentences": ["a", 3]})", "sentence 2 is not a string"},
      {R"({"sentences": ["a", "b", "c", "d"]})", "4 sentences; at most 3 per request (--max-sentences)"},
      {R"({"sentences": ["a", "12345678901"]})", "sentence 2 has 11 bytes; at most 10"},
      {R"({"sentences": ["a"], "beam": "4"})", "\"beam\" must be an integer"},
      {R"({"sentences": ["a"], "beam": 1.5})", "\"beam\" must be an integer"},
      {R"({"sentences": ["a"], "beam": 9})", "between 0 and 8, not 9"},
      {R"({"sentences": ["a"], "beam": -1})", "between 0 and 8, not -1"},
      {R"({"sentences": ["a"], "beam": 9223372036854775808})", "between 0 and 8, not 9223372036854775808"},
      {R"({"sentences": ["a"], "beam": 18446744073709551615})", "between 0 and 8, not 18446744073709551615"},
      {R"({"sentences": ["a"], "beam": -9223372036854775808})", "between 0 and 8, not -9223372036854775808"},
      {R"({"sentences": ["a"], "beam": 100000000000000000000000})", "between 0 and 8, not 9.999999999999999e+22"},
      {R"({"sentences": ["a"], "coverage_penalty": 0.5})", "\"coverage_penalty\" needs \"beam\" > 1"},
      {R"({"sentences": ["a"], "beam": 4, "length_penalty": -1})", "\"length_penalty\" must be a number from 0"},
      {R"({"sentences": ["a"], "beam": 4, "length_penalty": "x"})", "\"length_penalty\" must be a number"},
      {R"({"sentences": ["a"], "beam": 4, "sample": true})", "choose one way to decode"},
      {R"({"sentences": ["a"], "sample": 3})", "\"sample\" must be true, false or an object"},
      {R"({"sentences": ["a"], "sample": {"temp": 1}})", "\"sample\" has no field \"temp\""},
      {R"({"sentences": ["a"], "sample": {"top_p": 2}})", "\"top_p\" must be a number from 0 to 1"},
      {R"({"sentences": ["a"], "sample": {"seed": 1.5}})", "\"seed\" must be an integer"},
      {R"({"sentences": ["a"], "beem": 4})", "no field \"beem\" in this request (\"sentences\", \"beam\", \"n_best\""},
      // A number past the doubles was a 500 with the library's message.
      {R"({"sentences": ["a"], "beam": 1e999})", "not valid JSON: a number too large for a double"},
      {R"({"sentences": ["a"], "beam": -1e999})", "not valid JSON: a number too large for a double"},
      // A field given twice: the first list of sentences was dropped without a word.
      {R"({"sentences": ["a"], "sentences": ["b"]})", "gives the field \"sentences\" twice"},
      {R"({"sentences": ["a"], "sent\u0065nces": ["b"]})", "gives the field \"sentences\" twice"},
      {R"({"sentences": ["a"], "sample": {"temperature": 1, "temperature": 0.5}})",
       "gives the field \"temperature\" twice"},
  };
  for (const auto& [body, part] : cases) {
    const auto [status, message] = refusal(body);
    EXPECT_EQ(status, 400) << body;
    EXPECT_NE(message.find(part), std::string::npos) << body << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(refusal(R"({"sentences": ["a"]})", true).first, 400);  // /attention takes "sentence"
  EXPECT_NE(refusal(R"({"sentence": "a", "n_best": 2})", true)
                .second.find("no field \"n_best\" in this request (\"sentence\", \"beam\", \"replace_unk\", "
                             "\"length_penalty\", \"coverage_penalty\")"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"sentence": "a", "sample": true})", true).second.find("no field \"sample\""),
            std::string::npos);
  EXPECT_NE(
      refusal(R"({"sentence": "a", "replace_unk": 1})", true).second.find("\"replace_unk\" must be true or false"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"sentence": "a", "length_penalty": 0.6})", true).second.find("needs \"beam\" > 1"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"sentence": 5})", true).second.find("\"sentence\" must be a string"), std::string::npos);
  EXPECT_NE(refusal(R"({"sentence": "12345678901"})", true).second.find("the sentence has 11 bytes"),
            std::string::npos);
}

// A value nested 120,000 levels deep (240 KB) crashed the server: the error message
// serialised it recursively past the thread's stack. Deep values are now refused while
// parsing, and a message quotes a large or nested value by its kind and size only.
TEST(ApiJson, NeitherDeepNorLargeValuesReachTheMessage) {
  const std::string deep = std::string(120000, '[') + std::string(120000, ']');
  const std::vector<std::string> deep_bodies = {R"({"sentences": ["a"], "beam": 4, "length_penalty": )" + deep + "}",
                                                R"({"sentences": ["a"], "n_best": )" + deep + "}", deep,
                                                R"({"sentences": ["a"], "x": [[[[[[[[1]]]]]]]]})"};
  for (const auto& body : deep_bodies) {
    const auto [status, message] = refusal(body);
    EXPECT_EQ(status, 400);
    EXPECT_NE(message.find("nests lists or objects deeper than 8 levels"), std::string::npos) << message;
  }
  const auto [status, message] = refusal(R"({"sentences": ["a"], "n_best": ")" + std::string(100000, 'x') + "\"}");
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("not a string of 100000 bytes"), std::string::npos) << message.substr(0, 300);
  EXPECT_LT(message.size(), 200u);
  EXPECT_NE(
      refusal(R"({"sentences": ["a"], "beam": 4, "length_penalty": [1, 2]})").second.find("not a list of 2 items"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"sentences": ["a"], "n_best": "two"})").second.find("not \"two\""), std::string::npos);
  // Many small values: refused by their count before a document is built (350,000 empty
  // objects took 25 s to parse, lists 17 MB a body), in linear time.
  std::string many = R"({"sentences": ["a"], "x": [)";
  for (int i = 0; i < 350000; ++i) many += i == 0 ? "{}" : ",{}";
  many += "]}";
  const auto [many_status, many_message] = refusal(many);
  EXPECT_EQ(many_status, 400);
  EXPECT_NE(many_message.find("holds more than 67 values, the most a request has"), std::string::npos) << many_message;
  // Many distinct keys: refused by their count (looked up in a list, they took a minute).
  std::string keys = "{";
  for (int i = 0; i < 200000; ++i) keys += (i == 0 ? "\"k" : ", \"k") + std::to_string(i) + "\": 0";
  keys += "}";
  EXPECT_NE(refusal(keys).second.find("holds more than 67 values"), std::string::npos);
  // Brackets, commas and quotes inside strings are text, not structure.
  auto limits = small_limits();
  limits.max_sentence_chars = 100;
  EXPECT_EQ(parse_translate_call(R"({"sentences": ["[[[[[[[[[[ {,,,,,} \" ]]]"]})", limits).sentences.size(), 1u);
  // A request at its limits is not refused by the count: 3 sentences and every field.
  EXPECT_NO_THROW(parse_translate_call(
      R"({"sentences": ["a", "b", "c"], "beam": 4, "n_best": 2, "alignment": true, "length_penalty": 0.6,)"
      R"( "coverage_penalty": 0.2})",
      small_limits()));
  // The deepest request there is ("sample"'s object) still reads.
  EXPECT_TRUE(parse_translate_call(R"({"sentences": ["a"], "sample": {"seed": 1}})", small_limits()).decode.sample);
}

TEST(ApiJson, WritesTranslationsErrorsAndTimings) {
  BatchResult result;
  result.translations.resize(2);
  auto& ok = result.translations[0];
  ok.input = "I am hungry!";
  ok.words = {"i", "am", "hungry"};
  ok.unknown = {"hungry"};
  ok.raw = "tengo hambre";
  ok.text = "¡Tengo hambre!";
  ok.log_probability = -1.25;
  result.translations[1].input = "";
  result.translations[1].error = "no words left after normalisation";
  result.queue_ms = 1.5;
  result.decode_ms = 20;
  result.batch_sentences = 7;
  const auto answer = nlohmann::json::parse(translate_answer(result, 4, 22.5));
  const auto& t = answer["translations"];
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]["input"], "I am hungry!");
  EXPECT_EQ(t[0]["translation"], "¡Tengo hambre!");
  EXPECT_EQ(t[0]["raw"], "tengo hambre");
  EXPECT_EQ(t[0]["normalised"], "i am hungry");
  EXPECT_EQ(t[0]["unknown_words"], nlohmann::json::array({"hungry"}));
  EXPECT_DOUBLE_EQ(t[0]["log_probability"].get<double>(), -1.25);
  EXPECT_FALSE(t[0].contains("note"));  // within the length the model was trained on
  EXPECT_EQ(t[1]["error"], "no words left after normalisation");
  EXPECT_FALSE(t[1].contains("translation"));
  EXPECT_EQ(answer["beam"], 4);
  EXPECT_EQ(answer["batch_sentences"], 7);
  EXPECT_DOUBLE_EQ(answer["timings"]["queue_ms"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(answer["timings"]["decode_ms"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(answer["timings"]["total_ms"].get<double>(), 22.5);
  // A sentence longer than the model was trained on: its note says how it was translated.
  ok.note = "20 words, more than the 8 this model reads at once: translated in 3 parts";
  EXPECT_EQ(nlohmann::json::parse(translate_answer(result, 1, 1))["translations"][0]["note"], ok.note);
  // Not UTF-8 in an input: replaced, never an exception.
  result.translations[1].input = "bad \xff";
  nlohmann::json replaced;
  EXPECT_NO_THROW(replaced = nlohmann::json::parse(translate_answer(result, 1, 1)));
  EXPECT_EQ(nlohmann::json::parse(error_answer("first\nsecond")), nlohmann::json({{"error", "first"}}));
  EXPECT_EQ(nlohmann::json::parse(health_answer(3)), nlohmann::json({{"status", "ok"}, {"queued", 3}}));
}

TEST(ApiJson, AttentionAsLayersHeadsRowsColumnsRounded) {
  eval::SentenceTranslation t;
  t.input = "Hi.";
  t.words = {"hi"};
  t.raw = "hola";
  t.text = "Hola.";
  eval::TranslationAttention maps;
  maps.source = {"SOS", "hi", "EOS"};
  maps.target = {"SOS", "hola"};
  maps.written = {"hola", "EOS"};
  const auto weights = torch::full({2, 3, 3}, 1.0 / 3.0);  // [H, rows, cols]
  const auto steps = torch::full({2, 2, 3}, 1.0 / 3.0);    // [H, steps, source]
  maps.encoder_self = {weights, weights};
  maps.decoder_self = {torch::full({2, 2, 2}, 0.5)};
  maps.cross = {steps};
  maps.decoder_self_rest = {torch::tensor({0.0, 0.25}).expand({2, 2})};  // [H, steps]
  const auto text = attention_answer(t, maps, 1);
  const auto answer = nlohmann::json::parse(text);
  EXPECT_EQ(answer["translation"], "Hola.");
  EXPECT_EQ(answer["source"], nlohmann::json::array({"SOS", "hi", "EOS"}));
  EXPECT_EQ(answer["encoder_self"].size(), 2u);     // layers
  EXPECT_EQ(answer["encoder_self"][0].size(), 2u);  // heads
  EXPECT_EQ(answer["written"], nlohmann::json::array({"hola", "EOS"}));
  EXPECT_EQ(answer["cross"][0][1].size(), 2u);  // a row per decoding step
  EXPECT_EQ(answer["cross"][0][1][1][0].get<double>(), 0.33333);
  EXPECT_NE(text.find("0.33333,"), std::string::npos) << "5 significant digits, not 17";
  EXPECT_EQ(answer["rest"]["decoder_self"][0][1], nlohmann::json::array({0.0, 0.25}));  // [layer][head][row]
  EXPECT_EQ(answer["rest"]["encoder_self"], nlohmann::json::array());
  EXPECT_EQ(round_significant(0.000123456789, 5), 0.00012346);
  EXPECT_EQ(round_significant(0.0, 5), 0.0);
}

}  // namespace
}  // namespace dls::serve
