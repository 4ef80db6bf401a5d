#include "dls/util/json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace dls::util {
namespace {

TEST(Json, StringEscaping) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x01\x1f\0", 3)), "\"\\u0001\\u001f\\u0000\"");
  EXPECT_EQ(json_string("¿Dónde? €"), "\"¿Dónde? €\"");  // UTF-8 passes through
  EXPECT_EQ(json_string("/\x7f"), "\"/\x7f\"");
  // JSON text is UTF-8: a byte that is not becomes U+FFFD instead of an invalid file.
  EXPECT_EQ(json_string("a\xff"
                        "b"),
            "\"a\xef\xbf\xbd"
            "b\"");
  for (const char* text : {"plain", "a\"b\\c", "\n\t\x01", "¿Dónde? €"}) {
    EXPECT_EQ(nlohmann::json::parse(json_string(text)).get<std::string>(), text);
  }
}

TEST(Json, NumbersRoundTripAndNonFiniteIsNull) {
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(json_number(3.0), "3.0");  // stays a floating-point number when read back
  EXPECT_EQ(json_number(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(json_number(1e300), "1e+300");
  EXPECT_EQ(json_number(std::nan("")), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "null");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const double x =
        std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), static_cast<int>(rng() % 200) - 100);
    ASSERT_EQ(std::strtod(json_number(x).c_str(), nullptr), x) << json_number(x);
    ASSERT_EQ(nlohmann::json::parse(json_number(x)).get<double>(), x) << json_number(x);
  }
}

TEST(Json, CompactDocument) {
  JsonWriter json;
  json.begin_object()
      .key("model")
      .value("TransformerFG")
      .key("bleu")
      .value(23.5)
      .key("epochs")
      .value(20)
      .key("big")
      .value(std::numeric_limits<std::int64_t>::max())
      .key("unsigned")
      .value(42u)
      .key("beam")
      .value(false)
      .key("loss")
      .value(std::nan(""))
      .key("none")
      .null()
      .key("history")
      .begin_array()
      .value(1.5)
      .value(-2)
      .begin_object()
      .end_object()
      .begin_array()
      .end_array()
      .end_array()
      .end_object();
  EXPECT_EQ(json.str(),
            "{\"model\":\"TransformerFG\",\"bleu\":23.5,\"epochs\":20,\"big\":9223372036854775807,"
            "\"unsigned\":42,\"beam\":false,\"loss\":null,\"none\":null,\"history\":[1.5,-2,{},[]]}");
  // Read back: the same values, types and key order.
  const auto parsed = nlohmann::ordered_json::parse(json.str());
  EXPECT_EQ(parsed.at("model"), "TransformerFG");
  EXPECT_EQ(parsed.at("bleu").get<double>(), 23.5);
  EXPECT_TRUE(parsed.at("epochs").is_number_integer());
  EXPECT_EQ(parsed.at("big").get<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parsed.at("unsigned").get<unsigned>(), 42u);
  EXPECT_EQ(parsed.at("beam"), false);
  EXPECT_TRUE(parsed.at("loss").is_null());
  EXPECT_EQ(parsed.at("history").size(), 4u);
  std::vector<std::string> keys;
  for (const auto& item : parsed.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "bleu", "epochs", "big", "unsigned", "beam", "loss", "none",
                                            "history"}));
}

// field(name, v) is key(name).value(v) for every kind of value.
TEST(Json, FieldIsAKeyAndItsValue) {
  const std::string text = "text";
  JsonWriter fields, pairs;
  fields.begin_object()
      .field("literal", "TransformerFG")
      .field("string", text)
      .field("double", 23.5)
      .field("int", -20)
      .field("unsigned", std::uint64_t{42})
      .field("flag", true)
      .end_object();
  pairs.begin_object()
      .key("literal")
      .value("TransformerFG")
      .key("string")
      .value(text)
      .key("double")
      .value(23.5)
      .key("int")
      .value(-20)
      .key("unsigned")
      .value(std::uint64_t{42})
      .key("flag")
      .value(true)
      .end_object();
  EXPECT_EQ(fields.str(), pairs.str());
  EXPECT_EQ(fields.str(),
            R"({"literal":"TransformerFG","string":"text","double":23.5,"int":-20,"unsigned":42,"flag":true})");
}

TEST(Json, IndentedDocument) {
  JsonWriter json(2);
  json.begin_object()
      .key("a")
      .value(1)
      .key("b")
      .begin_array()
      .value(true)
      .value("x")
      .end_array()
      .key("c")
      .begin_object()
      .end_object()
      .end_object();
  EXPECT_EQ(json.str(),
            "{\n"
            "  \"a\": 1,\n"
            "  \"b\": [\n"
            "    true,\n"
            "    \"x\"\n"
            "  ],\n"
            "  \"c\": {}\n"
            "}");
  EXPECT_EQ(nlohmann::json::parse(json.str()), nlohmann::json::parse(R"({"a":1,"b":[true,"x"],"c":{}})"));
  JsonWriter scalar;
  EXPECT_EQ(scalar.value("only").str(), "\"only\"");
}

TEST(Json, MisuseIsALogicError) {
  EXPECT_THROW(JsonWriter().begin_object().value(1), std::logic_error);  // no key
  EXPECT_THROW(JsonWriter().begin_array().key("k"), std::logic_error);   // key in array
  EXPECT_THROW(JsonWriter().begin_object().end_array(), std::logic_error);
  EXPECT_THROW(JsonWriter().begin_object().key("k").end_object(), std::logic_error);
  EXPECT_THROW(JsonWriter().value(1).value(2), std::logic_error);  // two top-level values
  EXPECT_THROW(JsonWriter().begin_object().key("k").value(1).key("k").value(2), std::logic_error);
  JsonWriter open;
  open.begin_array();
  EXPECT_THROW(open.str(), std::logic_error);
}

}  // namespace
}  // namespace dls::util
