// A reader for the plain-data subset of Python's pickle format (protocols 2 to 5), enough
// for DLStudio's archives: the 3-tuple (dataset, vocab_en, vocab_es) where dataset is a
// dict int -> [english, spanish].
//
// Nothing in the input is executed or trusted. Opcodes that would import or call Python
// code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, NEWOBJ, INST, OBJ, PERSID, EXT*, ...) are
// refused, and so is anything else outside the subset (sets, text-mode ints, out-of-band
// buffers). Every length is checked against the remaining input before it is used, so a
// corrupt or hostile file gives an error, never a huge allocation. Containers that
// contain themselves and nesting deeper than kMaxPickleDepth are refused.
//
// Errors are std::runtime_error with one line: "<name>: byte <offset>: <what>", e.g.
//   archive.pkl: byte 1234: refusing pickle opcode GLOBAL (0x63): only plain data is accepted
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dls::data {

namespace detail {
class PickleMachine;
}

constexpr int kMaxPickleDepth = 1000;  // the default recursion limit of Python's pickler

// One unpickled value. Strings, lists, tuples and dicts are shared between copies (the
// way the pickle's memo shares them), so copying a PickleValue is cheap; the public API
// never modifies a value after it was built.
class PickleValue {
 public:
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kBytes, kList, kTuple, kDict };
  using Items = std::vector<PickleValue>;                            // list or tuple
  using Entries = std::vector<std::pair<PickleValue, PickleValue>>;  // dict, insertion order

  PickleValue() = default;  // None
  static PickleValue boolean(bool value);
  static PickleValue integer(std::int64_t value);
  static PickleValue floating(double value);
  static PickleValue string(std::string utf8);  // Python str (UTF-8 bytes, not validated)
  static PickleValue bytes(std::string data);   // Python bytes
  static PickleValue list(Items items);
  static PickleValue tuple(Items items);
  static PickleValue dict(Entries entries);  // duplicate keys are kept as given

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is(Kind kind) const { return kind_ == kind; }

  // Typed access; each throws std::runtime_error("expected <kind>, got <kind>") on a
  // value of another kind. items() accepts a list or a tuple.
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_float() const;
  const std::string& as_string() const;
  const std::string& as_bytes() const;
  const Items& items() const;
  const Entries& entries() const;

  // The value stored under `key` in a dict (nullptr when absent), comparing with ==.
  const PickleValue* find(const PickleValue& key) const;

  // Deep equality; values of different kinds are never equal (unlike Python, 1 != True).
  bool operator==(const PickleValue& other) const;
  bool operator!=(const PickleValue& other) const { return !(*this == other); }

  // Python-like representation for messages and tests, e.g. (1, 'a', [None, True]).
  std::string repr() const;

  static const char* kind_name(Kind kind);  // "None", "bool", "int", ..., "dict"

 private:
  friend class detail::PickleMachine;

  explicit PickleValue(Kind kind) : kind_(kind) {}
  static PickleValue text(Kind kind, std::string content);  // str or bytes
  static PickleValue sequence(Kind kind, Items items);      // list or tuple

  Kind kind_ = Kind::kNone;
  bool bool_ = false;
  std::int64_t int_ = 0;
  double float_ = 0.0;
  std::shared_ptr<const std::string> text_;  // string or bytes
  std::shared_ptr<Items> items_;             // list or tuple
  std::shared_ptr<Entries> entries_;         // dict
};

// Decodes a whole pickle held in memory. `name` (usually the file name) starts every
// error message. Bytes after the STOP opcode are ignored, as Python does.
PickleValue parse_pickle(const std::string& bytes, const std::string& name);

// Reads a pickle file, gzip-compressed or not (DLStudio's "*.tar.gz" archives are
// gzip-compressed pickles).
PickleValue read_pickle_file(const std::string& path);

}  // namespace dls::data
