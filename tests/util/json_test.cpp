#include "dls/util/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

namespace dls::util {
namespace {

TEST(Json, StringEscaping) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
  EXPECT_EQ(json_string(std::string("\x01\x1f\0", 3)), "\"\\u0001\\u001f\\u0000\"");
  EXPECT_EQ(json_string("¿Dónde? €"), "\"¿Dónde? €\"");  // UTF-8 passes through
  EXPECT_EQ(json_string("/\x7f"), "\"/\x7f\"");
}

TEST(Json, NumbersRoundTripAndNonFiniteIsNull) {
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(json_number(3.0), "3");
  EXPECT_EQ(json_number(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(json_number(1e300), "1e+300");
  EXPECT_EQ(json_number(std::nan("")), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "null");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const double x = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), static_cast<int>(rng() % 200) - 100);
    ASSERT_EQ(std::strtod(json_number(x).c_str(), nullptr), x) << json_number(x);
  }
}

TEST(Json, CompactDocument) {
  JsonWriter json;
  json.begin_object()
      .key("model").value("TransformerFG")
      .key("bleu").value(23.5)
      .key("epochs").value(20)
      .key("big").value(std::numeric_limits<std::int64_t>::max())
      .key("unsigned").value(42u)
      .key("beam").value(false)
      .key("loss").value(std::nan(""))
      .key("none").null()
      .key("history").begin_array().value(1.5).value(-2).begin_object().end_object().begin_array().end_array().end_array()
      .end_object();
  EXPECT_EQ(json.str(),
            "{\"model\":\"TransformerFG\",\"bleu\":23.5,\"epochs\":20,\"big\":9223372036854775807,"
            "\"unsigned\":42,\"beam\":false,\"loss\":null,\"none\":null,\"history\":[1.5,-2,{},[]]}");
}

TEST(Json, IndentedDocument) {
  JsonWriter json(2);
  json.begin_object().key("a").value(1).key("b").begin_array().value(true).value("x").end_array()
      .key("c").begin_object().end_object().end_object();
  EXPECT_EQ(json.str(),
            "{\n"
            "  \"a\": 1,\n"
            "  \"b\": [\n"
            "    true,\n"
            "    \"x\"\n"
            "  ],\n"
            "  \"c\": {}\n"
            "}");
  JsonWriter scalar;
  EXPECT_EQ(scalar.value("only").str(), "\"only\"");
}

TEST(Json, MisuseIsALogicError) {
  EXPECT_THROW(JsonWriter().begin_object().value(1), std::logic_error);     // no key
  EXPECT_THROW(JsonWriter().begin_array().key("k"), std::logic_error);      // key in array
  EXPECT_THROW(JsonWriter().begin_object().end_array(), std::logic_error);
  EXPECT_THROW(JsonWriter().begin_object().key("k").end_object(), std::logic_error);
  EXPECT_THROW(JsonWriter().value(1).value(2), std::logic_error);           // two top-level values
  JsonWriter open;
  open.begin_array();
  EXPECT_THROW(open.str(), std::logic_error);
}

}  // namespace
}  // namespace dls::util
