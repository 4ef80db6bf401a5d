#include "dls/data/pickle.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "support/error_of.h"
#include "support/test_paths.h"

namespace dls::data {
namespace {

using Kind = PickleValue::Kind;

const std::string kDir = dls::testing::fixtures_dir() + "/pickle/";

std::vector<std::vector<std::string>> read_tsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

// The message of the runtime_error thrown by parse_pickle, or "" when none is thrown.
std::string pickle_error(const std::string& bytes) {
  return test::error_of<std::runtime_error>([&] { parse_pickle(bytes, "mem.pkl"); });
}

// Bytes of a string literal, NULs included.
template <std::size_t N>
std::string raw(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Pickle, ArchiveFixturesDecodeAtEveryProtocol) {
  const auto expected = read_tsv(kDir + "archive_expected.tsv");
  ASSERT_FALSE(expected.empty());
  for (const std::string protocol : {"2", "3", "4", "5"}) {
    for (const std::string suffix : {".pkl", ".pkl.gz"}) {
      SCOPED_TRACE("archive_p" + protocol + suffix);
      const PickleValue archive = read_pickle_file(kDir + "archive_p" + protocol + suffix);
      ASSERT_TRUE(archive.is(Kind::kTuple));
      ASSERT_EQ(archive.items().size(), 3u);
      const auto& dataset = archive.items()[0].entries();
      const auto& vocab_en = archive.items()[1].items();
      const auto& vocab_es = archive.items()[2].items();
      std::size_t d = 0, e = 0, s = 0;
      for (const auto& row : expected) {
        if (row[0] == "D") {
          ASSERT_LT(d, dataset.size());
          EXPECT_EQ(dataset[d].first.as_int(), std::stoll(row[1]));
          const auto& pair = dataset[d].second;
          ASSERT_TRUE(pair.is(Kind::kList));
          ASSERT_EQ(pair.items().size(), 2u);
          EXPECT_EQ(pair.items()[0].as_string(), row[2]);
          EXPECT_EQ(pair.items()[1].as_string(), row[3]);
          ++d;
        } else if (row[0] == "E") {
          ASSERT_LT(e, vocab_en.size());
          EXPECT_EQ(vocab_en[e++].as_string(), row[1]);
        } else {
          ASSERT_LT(s, vocab_es.size());
          EXPECT_EQ(vocab_es[s++].as_string(), row[1]);
        }
      }
      EXPECT_EQ(d, dataset.size());
      EXPECT_EQ(e, vocab_en.size());
      EXPECT_EQ(s, vocab_es.size());
      // Spot checks against the script's literal data.
      EXPECT_EQ(dataset.size(), 16u);
      EXPECT_EQ(dataset[0].second.items()[1].as_string(), "SOS lo mataré EOS");
      EXPECT_EQ(dataset.back().first.as_int(), std::int64_t{1} << 62);
      EXPECT_EQ(vocab_en[0].as_string(), "SOS");
      EXPECT_EQ(vocab_es[1].as_string(), "EOS");
    }
  }
}

TEST(Pickle, ValueFixturesDecodeEveryKind) {
  for (const int protocol : {2, 3, 4, 5}) {
    SCOPED_TRACE(protocol);
    const PickleValue v = read_pickle_file(kDir + "values_p" + std::to_string(protocol) + ".pkl");
    const auto at = [&](const char* key) {
      const PickleValue* found = v.find(PickleValue::string(key));
      if (found == nullptr) throw std::runtime_error(std::string("missing key ") + key);
      return *found;
    };
    EXPECT_TRUE(at("none").is_none());
    EXPECT_TRUE(at("true").as_bool());
    EXPECT_FALSE(at("false").as_bool());
    EXPECT_EQ(at("small").as_int(), 7);
    EXPECT_EQ(at("int2").as_int(), 1000);
    EXPECT_EQ(at("neg").as_int(), -123456);
    EXPECT_EQ(at("big").as_int(), std::int64_t{1} << 40);
    EXPECT_EQ(at("huge").as_int(), INT64_MIN);
    EXPECT_EQ(at("max").as_int(), INT64_MAX);
    EXPECT_EQ(at("float").as_float(), 1.5);
    EXPECT_EQ(at("negfloat").as_float(), -0.25);
    EXPECT_EQ(at("text").as_string(), "añadió ¿qué? 日本 🙂");
    EXPECT_EQ(at("empty").repr(), "([], {}, (), '')");
    EXPECT_EQ(at("tuples").repr(), "((1,), (1, 2), (1, 2, 3), (1, 2, 3, 4))");
    EXPECT_EQ(at("shared").repr(), "[['x', 'y'], ['x', 'y']]");
    EXPECT_EQ(v.find(PickleValue::integer(1))->as_string(), "int key");
    const PickleValue tuple_key = PickleValue::tuple({PickleValue::integer(1), PickleValue::string("a")});
    EXPECT_EQ(v.find(tuple_key)->as_string(), "tuple key");
    if (protocol >= 3) {
      EXPECT_EQ(at("bytes").as_bytes(), raw("\x00\xff"
                                            "ab"));
      EXPECT_EQ(at("bytes").repr(), "b'\\x00\\xffab'");
    }
  }
}

TEST(Pickle, RefusedOpcodesNameOpcodeAndOffset) {
  const auto rows = read_tsv(kDir + "refused_expected.tsv");
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    const std::string path = kDir + row[0];
    const std::string hex = row[1] == "STACK_GLOBAL" ? "0x93" : row[1] == "GLOBAL" ? "0x63" : "?";
    try {
      read_pickle_file(path);
      ADD_FAILURE() << path << ": no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), path + ": byte " + row[2] + ": refusing pickle opcode " + row[1] + " (" + hex +
                                           "): only plain data is accepted");
    }
  }
}

TEST(Pickle, TruncatedFixtureIsAnError) {
  const std::string path = kDir + "truncated_p4.pkl";
  try {
    read_pickle_file(path);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), path + ": byte ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "truncated pickle")) << e.what();
  }
}

TEST(Pickle, EveryPrefixOfAFixtureIsAnError) {
  for (const char* name : {"archive_p2.pkl", "values_p5.pkl"}) {
    const std::string whole = util::read_file(kDir + name);
    for (std::size_t n = 0; n < whole.size(); ++n) {
      EXPECT_NE(pickle_error(whole.substr(0, n)), "") << name << " cut at " << n;
    }
  }
}

TEST(Pickle, CorruptedBytesGiveValuesOrErrorsNeverCrashes) {
  // Every single-byte corruption of an archive either still decodes or throws
  // std::runtime_error (anything else fails the test; a crash ends it).
  const std::string whole = util::read_file(kDir + "archive_p4.pkl");
  int errors = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    for (const unsigned char flip : {0x01, 0x80, 0xFF}) {
      std::string bytes = whole;
      bytes[i] = static_cast<char>(static_cast<unsigned char>(bytes[i]) ^ flip);
      errors += pickle_error(bytes).empty() ? 0 : 1;
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(Pickle, MemoSharesContainersFilledAfterPut) {
  // EMPTY_LIST BINPUT 0 MARK 1 2 APPENDS BINGET 0 TUPLE2 STOP -> ([1, 2], [1, 2])
  const PickleValue v = parse_pickle(raw("\x80\x02]q\x00(K\x01K\x02"
                                         "eh\x00\x86."),
                                     "mem");
  EXPECT_EQ(v.repr(), "([1, 2], [1, 2])");
  // Text-mode PUT/GET, DUP, POP and POP_MARK.
  EXPECT_EQ(parse_pickle("K\x05p7\n0g7\n2(K\x01\x31\x86.", "mem").repr(), "(5, 5)");
}

TEST(Pickle, HandWrittenOpcodes) {
  // LONG4 with a small value, LONG1 sign extension beyond 8 bytes, BININT negative.
  EXPECT_EQ(parse_pickle(raw("\x8b\x02\x00\x00\x00\x00\x01."), "m").as_int(), 256);
  EXPECT_EQ(parse_pickle(raw("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\xff."), "m").as_int(), -1);
  EXPECT_EQ(parse_pickle(raw("\x8a\x00."), "m").as_int(), 0);
  EXPECT_EQ(parse_pickle("J\xfe\xff\xff\xff.", "m").as_int(), -2);
  // BINFLOAT is big-endian: 0x3FF8000000000000 = 1.5.
  EXPECT_EQ(parse_pickle(raw("G\x3f\xf8\x00\x00\x00\x00\x00\x00."), "m").as_float(), 1.5);
  // UNICODE (protocol 0 raw-unicode-escape): Latin-1 bytes and \u escapes.
  EXPECT_EQ(parse_pickle("Vni\xf1o \\u00e9\\U0001F642\n.", "m").as_string(), "niño é🙂");
  // BINUNICODE8, SHORT_BINBYTES, BINBYTES, NONE, EMPTY_TUPLE, TUPLE with MARK, LIST, DICT.
  EXPECT_EQ(parse_pickle(raw("\x8d\x02\x00\x00\x00\x00\x00\x00\x00hi."), "m").as_string(), "hi");
  EXPECT_EQ(parse_pickle(raw("C\x02\x00\x01."), "m").as_bytes(), raw("\x00\x01"));
  EXPECT_EQ(parse_pickle(raw("B\x01\x00\x00\x00z."), "m").as_bytes(), "z");
  EXPECT_EQ(parse_pickle("(N)K\x01t.", "m").repr(), "(None, (), 1)");
  EXPECT_EQ(parse_pickle("(K\x01K\x02l.", "m").repr(), "[1, 2]");
  EXPECT_EQ(parse_pickle("(K\x01K\x02\x64.", "m").repr(), "{1: 2}");
}

TEST(Pickle, DictKeysFollowPythonSemantics) {
  // A repeated key replaces the value in place; True == 1 as a key; lists are unhashable.
  EXPECT_EQ(parse_pickle("}(K\x01K\x02K\x03K\x04K\x01K\x05u.", "m").repr(), "{1: 5, 3: 4}");
  EXPECT_EQ(parse_pickle("}(K\x01K\x02\x88K\x03u.", "m").repr(), "{1: 3}");
  EXPECT_EQ(parse_pickle(raw("}(G\x3f\xf0\x00\x00\x00\x00\x00\x00K\x02K\x01K\x03u."), "m").repr(), "{1.0: 3}");
  EXPECT_TRUE(contains(pickle_error("}]K\x01s."), "unhashable dict key of type list"));
}

TEST(Pickle, MalformedInputGivesOneLineErrors) {
  struct Case {
    std::string bytes;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "mem.pkl: byte 0: truncated pickle: no STOP opcode"},
      {"\x80\x06.", "mem.pkl: byte 0: unsupported pickle protocol 6"},
      {"\xff", "mem.pkl: byte 0: unknown pickle opcode 0xff"},
      {"\x80\x04\x8f.", "mem.pkl: byte 2: refusing pickle opcode EMPTY_SET (0x8f): not supported"},
      {"\x80\x02h\x03.", "mem.pkl: byte 2: memo key 3 is not defined"},
      {".", "mem.pkl: byte 0: STOP on an empty stack"},
      {"K\x01K\x02.", "mem.pkl: byte 4: STOP leaves extra values on the stack (1)"},
      {"}K\x01\x61.", "mem.pkl: byte 3: APPEND to a dict"},
      {"]K\x01K\x02s.", "mem.pkl: byte 5: SETITEM to a list"},
      {"K\x01\x65.", "mem.pkl: byte 2: APPENDS without a MARK"},
      {raw("]q\x00h\x00\x61."), "contains itself"},
      {raw("\x8d\x00\x00\x00\x00\x00\x00\x00\x40"),
       "mem.pkl: byte 0: truncated pickle: BINUNICODE8 needs 4611686018427387904 bytes, 0 left"},
      {raw("\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."),
       "mem.pkl: byte 2: truncated pickle: FRAME of 255 bytes, 2 left"},
      {raw("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01."), "integer does not fit in 64 bits"},
      {"Vab\\u00zz\n.", "bad \\u escape"},
  };
  for (const Case& c : cases) {
    const std::string message = pickle_error(c.bytes);
    EXPECT_TRUE(contains(message, c.message)) << "got: " << message << "\nwanted: " << c.message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(Pickle, NestingDeeperThanTheLimitIsRefused) {
  const auto nested = [](int depth) {  // depth lists, each the single item of its parent
    std::string bytes;
    for (int i = 0; i < depth; ++i) bytes += "]";
    for (int i = 1; i < depth; ++i) bytes += "a";
    return bytes + ".";
  };
  EXPECT_EQ(pickle_error(nested(kMaxPickleDepth)), "");
  EXPECT_TRUE(contains(pickle_error(nested(kMaxPickleDepth + 1)), "nested deeper than 1000"));
}

TEST(Pickle, TypedAccessChecksTheKind) {
  const PickleValue v = PickleValue::list({PickleValue::integer(3)});
  EXPECT_EQ(v.items()[0].as_int(), 3);
  try {
    v.as_string();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "pickle value: expected str, got list");
  }
  EXPECT_THROW(v.entries(), std::runtime_error);
  EXPECT_NE(PickleValue::integer(1), PickleValue::boolean(true));
  EXPECT_EQ(PickleValue::floating(0.1).repr(), "0.1");
  EXPECT_EQ(PickleValue::floating(2).repr(), "2.0");
}

}  // namespace
}  // namespace dls::data
