// The pickle machine: a stack, a mark stack and a memo, driven by the plain-data opcodes.
// Containers are shared through the memo exactly as in Python (a list memoised before it
// is filled is seen filled by a later GET), which is why PickleValue shares its payloads.
#include "dls/data/pickle.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "data/pickle_graph.h"
#include "data/pickle_opcodes.h"
#include "dls/util/file_io.h"
#include "dls/util/utf8.h"

namespace dls::data {

namespace detail {

class PickleMachine {
 public:
  using Items = PickleValue::Items;
  using Entries = PickleValue::Entries;

  PickleMachine(const std::string& bytes, const std::string& name) : in_(bytes), name_(name) {}

  // On failure the containers may hold each other in a cycle: empty them all so that
  // every shared payload is freed.
  ~PickleMachine() {
    if (succeeded_) return;
    for (auto& container : containers_) {
      if (container.items_) container.items_->clear();
      if (container.entries_) container.entries_->clear();
    }
  }

  PickleValue run();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(name_ + ": byte " + std::to_string(op_offset_) + ": " + what);
  }

  std::string_view take(std::uint64_t n) {
    const std::uint64_t left = in_.size() - pos_;
    if (n > left) {
      fail(std::string("truncated pickle: ") + opcode_name(op_) + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(left) + " left");
    }
    const std::string_view out(in_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return out;
  }
  std::uint64_t read_le(int n) {  // unsigned little-endian integer of n bytes
    const std::string_view b = take(n);
    std::uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(b[i]);
    return value;
  }
  std::string_view read_line() {  // text argument of protocol-0 opcodes, without '\n'
    const std::size_t end = in_.find('\n', pos_);
    if (end == std::string::npos) fail(std::string("truncated pickle: ") + opcode_name(op_) + " has no end of line");
    const std::string_view line(in_.data() + pos_, end - pos_);
    pos_ = end + 1;
    return line;
  }
  std::uint64_t read_decimal_line() {
    const std::string_view line = read_line();
    std::uint64_t value = 0;
    if (line.empty() || line.size() > 18) fail(std::string("bad memo key for ") + opcode_name(op_));
    for (const char c : line) {
      if (c < '0' || c > '9') fail(std::string("bad memo key for ") + opcode_name(op_));
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return value;
  }

  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  PickleValue pop() {
    if (stack_.size() <= floor()) fail(std::string(opcode_name(op_)) + " on an empty stack");
    PickleValue top = std::move(stack_.back());
    stack_.pop_back();
    return top;
  }
  PickleValue& top() {
    if (stack_.size() <= floor()) fail(std::string(opcode_name(op_)) + " on an empty stack");
    return stack_.back();
  }
  Items pop_to_mark() {
    if (marks_.empty()) fail(std::string(opcode_name(op_)) + " without a MARK");
    Items items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back())),
                std::make_move_iterator(stack_.end()));
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }

  PickleValue registered(PickleValue container) {
    containers_.push_back(container);
    return container;
  }
  void push_container(PickleValue container) { stack_.push_back(registered(std::move(container))); }
  void push_tuple(Items items) { push_container(PickleValue::tuple(std::move(items))); }
  void push_text(PickleValue::Kind kind, std::uint64_t length) {
    const std::string_view text = take(length);
    stack_.push_back(kind == PickleValue::Kind::kString ? PickleValue::string(std::string(text))
                                                        : PickleValue::bytes(std::string(text)));
  }
  void push_long(std::uint64_t length);
  void push_raw_unicode_escape(std::string_view line);

  void append(PickleValue& list, Items&& items) {
    if (!list.is(PickleValue::Kind::kList))
      fail(std::string(opcode_name(op_)) + " to a " + PickleValue::kind_name(list.kind()));
    for (auto& item : items) list.items_->push_back(std::move(item));
  }
  void set_items(PickleValue& dict, Items&& keys_and_values);
  std::string hash_key(const PickleValue& key, int depth) const;

  void memo_put(std::uint64_t key) { memo_[key] = top(); }
  void memo_get(std::uint64_t key) {
    const auto found = memo_.find(key);
    if (found == memo_.end()) fail("memo key " + std::to_string(key) + " is not defined");
    stack_.push_back(found->second);
  }

  const std::string& in_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::size_t op_offset_ = 0;
  unsigned char op_ = 0;
  bool succeeded_ = false;
  std::vector<PickleValue> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<std::uint64_t, PickleValue> memo_;
  std::vector<PickleValue> containers_;  // every list, tuple and dict built
  // Per dict: hash key -> position, so that a repeated key replaces the value as in Python.
  std::unordered_map<const Entries*, std::unordered_map<std::string, std::size_t>> dict_index_;
};

void PickleMachine::push_long(std::uint64_t length) {
  // Little-endian two's complement; more than 8 bytes only as sign extension.
  const std::string_view b = take(length);
  if (length == 0) {
    stack_.push_back(PickleValue::integer(0));
    return;
  }
  const bool negative = static_cast<unsigned char>(b[length - 1]) & 0x80;
  for (std::size_t i = 8; i < length; ++i) {
    if (static_cast<unsigned char>(b[i]) != (negative ? 0xFF : 0x00)) fail("integer does not fit in 64 bits");
  }
  const std::size_t used = length < 8 ? static_cast<std::size_t>(length) : 8;
  std::uint64_t value = negative ? ~std::uint64_t{0} : 0;
  for (std::size_t i = 0; i < used; ++i) {
    value &= ~(std::uint64_t{0xFF} << (8 * i));
    value |= std::uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
  }
  if (length > 8 && ((value >> 63) != 0) != negative) fail("integer does not fit in 64 bits");
  stack_.push_back(PickleValue::integer(static_cast<std::int64_t>(value)));
}

void PickleMachine::push_raw_unicode_escape(std::string_view line) {
  // Protocol 0's "raw-unicode-escape": bytes are Latin-1 code points except \uXXXX and
  // \UXXXXXXXX escapes (Python's pickler escapes backslashes themselves as \u005c).
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char32_t code_point = static_cast<unsigned char>(line[i]);
    if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == 'u' || line[i + 1] == 'U')) {
      const std::size_t digits = line[i + 1] == 'u' ? 4 : 8;
      if (i + 2 + digits > line.size()) fail("UNICODE: truncated \\u escape");
      code_point = 0;
      for (std::size_t k = i + 2; k < i + 2 + digits; ++k) {
        const char c = line[k];
        const int digit = (c >= '0' && c <= '9')   ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
        if (digit < 0) fail("UNICODE: bad \\u escape");
        code_point = code_point * 16 + static_cast<char32_t>(digit);
      }
      if (code_point > 0x10FFFF) fail("UNICODE: code point above U+10FFFF");
      i += 1 + digits;
    }
    util::append_utf8(out, code_point);
  }
  stack_.push_back(PickleValue::string(std::move(out)));
}

std::string PickleMachine::hash_key(const PickleValue& key, int depth) const {
  // Equal keys in Python's sense give equal strings (True == 1 == 1.0).
  using Kind = PickleValue::Kind;
  if (depth > kMaxPickleDepth) fail("dict key nested too deeply");
  switch (key.kind()) {
    case Kind::kNone:
      return "N";
    case Kind::kBool:
      return key.bool_ ? "i1" : "i0";
    case Kind::kInt:
      return "i" + std::to_string(key.int_);
    case Kind::kFloat: {
      const double f = key.float_;
      if (f >= -9.2e18 && f <= 9.2e18 && f == std::trunc(f)) {  // range first: no UB cast
        return "i" + std::to_string(static_cast<std::int64_t>(f));
      }
      std::string raw(sizeof f, '\0');
      std::memcpy(raw.data(), &f, sizeof f);
      return "f" + raw;
    }
    case Kind::kString:
      return "s" + std::to_string(key.text_->size()) + ":" + *key.text_;
    case Kind::kBytes:
      return "b" + std::to_string(key.text_->size()) + ":" + *key.text_;
    case Kind::kTuple: {
      std::string out = "(";
      for (const auto& item : *key.items_) out += hash_key(item, depth + 1) + ",";
      return out + ")";
    }
    case Kind::kList:
    case Kind::kDict:
      break;
  }
  fail(std::string("unhashable dict key of type ") + PickleValue::kind_name(key.kind()));
}

void PickleMachine::set_items(PickleValue& dict, Items&& keys_and_values) {
  if (!dict.is(PickleValue::Kind::kDict))
    fail(std::string(opcode_name(op_)) + " to a " + PickleValue::kind_name(dict.kind()));
  if (keys_and_values.size() % 2 != 0) fail(std::string(opcode_name(op_)) + " with an odd number of items");
  Entries& entries = *dict.entries_;
  auto& index = dict_index_[&entries];
  for (std::size_t i = 0; i < keys_and_values.size(); i += 2) {
    const auto [slot, inserted] = index.emplace(hash_key(keys_and_values[i], 0), entries.size());
    if (inserted) {
      entries.emplace_back(std::move(keys_and_values[i]), std::move(keys_and_values[i + 1]));
    } else {
      entries[slot->second].second = std::move(keys_and_values[i + 1]);
    }
  }
}

PickleValue PickleMachine::run() {
  using Kind = PickleValue::Kind;
  while (true) {
    op_offset_ = pos_;
    if (pos_ >= in_.size()) fail("truncated pickle: no STOP opcode");
    op_ = static_cast<unsigned char>(in_[pos_++]);
    switch (op_) {
      case 0x80: {  // PROTO
        const auto version = read_le(1);
        if (version > 5) fail("unsupported pickle protocol " + std::to_string(version) + " (this reader knows 0 to 5)");
        break;
      }
      case 0x95: {  // FRAME: only a buffering hint, but its length must be there
        const std::uint64_t length = read_le(8);
        if (length > in_.size() - pos_)
          fail("truncated pickle: FRAME of " + std::to_string(length) + " bytes, " + std::to_string(in_.size() - pos_) +
               " left");
        break;
      }
      case '.': {  // STOP
        PickleValue result = pop();
        if (!stack_.empty() || !marks_.empty())
          fail("STOP leaves extra values on the stack (" + std::to_string(stack_.size()) + ")");
        const std::string graph_problem = check_container_graph(containers_);
        if (!graph_problem.empty()) fail(graph_problem);
        succeeded_ = true;
        return result;
      }
      case 'N':
        stack_.emplace_back();
        break;
      case 0x88:
        stack_.push_back(PickleValue::boolean(true));
        break;
      case 0x89:
        stack_.push_back(PickleValue::boolean(false));
        break;
      case 'J':
        stack_.push_back(PickleValue::integer(static_cast<std::int32_t>(read_le(4))));
        break;
      case 'K':
        stack_.push_back(PickleValue::integer(static_cast<std::int64_t>(read_le(1))));
        break;
      case 'M':
        stack_.push_back(PickleValue::integer(static_cast<std::int64_t>(read_le(2))));
        break;
      case 0x8a:
        push_long(read_le(1));
        break;
      case 0x8b: {
        const auto length = static_cast<std::int32_t>(read_le(4));
        if (length < 0) fail("LONG4 with a negative length");
        push_long(static_cast<std::uint64_t>(length));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian IEEE 754 double
        const std::string_view b = take(8);
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(b[i]);
        double value = 0;
        std::memcpy(&value, &bits, sizeof value);
        stack_.push_back(PickleValue::floating(value));
        break;
      }
      case 0x8c:
        push_text(Kind::kString, read_le(1));
        break;
      case 'X':
        push_text(Kind::kString, read_le(4));
        break;
      case 0x8d:
        push_text(Kind::kString, read_le(8));
        break;
      case 'V':
        push_raw_unicode_escape(read_line());
        break;
      case 'C':
        push_text(Kind::kBytes, read_le(1));
        break;
      case 'B':
        push_text(Kind::kBytes, read_le(4));
        break;
      case 0x8e:
        push_text(Kind::kBytes, read_le(8));
        break;
      case ']':
        push_container(PickleValue::list({}));
        break;
      case '}':
        push_container(PickleValue::dict({}));
        break;
      case ')':
        push_tuple({});
        break;
      case 'l':
        push_container(PickleValue::list(pop_to_mark()));
        break;
      case 't':
        push_tuple(pop_to_mark());
        break;
      case 'd': {
        PickleValue dict = registered(PickleValue::dict({}));
        set_items(dict, pop_to_mark());
        stack_.push_back(std::move(dict));
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1, TUPLE2, TUPLE3
        Items items(static_cast<std::size_t>(op_ - 0x84));
        for (auto item = items.rbegin(); item != items.rend(); ++item) *item = pop();
        push_tuple(std::move(items));
        break;
      }
      case 'a': {
        Items item{pop()};
        append(top(), std::move(item));
        break;
      }
      case 'e': {
        Items items = pop_to_mark();
        append(top(), std::move(items));
        break;
      }
      case 's': {
        PickleValue value = pop();
        PickleValue key = pop();
        set_items(top(), Items{std::move(key), std::move(value)});
        break;
      }
      case 'u': {
        Items items = pop_to_mark();
        set_items(top(), std::move(items));
        break;
      }
      case '(':
        marks_.push_back(stack_.size());
        break;
      case '0':
        pop();
        break;
      case '1':
        pop_to_mark();
        break;
      case '2': {
        PickleValue copy = top();
        stack_.push_back(std::move(copy));
        break;
      }
      case 'p':
        memo_put(read_decimal_line());
        break;
      case 'q':
        memo_put(read_le(1));
        break;
      case 'r':
        memo_put(read_le(4));
        break;
      case 0x94:
        memo_put(memo_.size());
        break;
      case 'g':
        memo_get(read_decimal_line());
        break;
      case 'h':
        memo_get(read_le(1));
        break;
      case 'j':
        memo_get(read_le(4));
        break;
      default: {
        const char* name = opcode_name(op_);
        if (name == nullptr) fail("unknown pickle opcode " + hex_byte(op_));
        fail(std::string("refusing pickle opcode ") + name + " (" + hex_byte(op_) +
             "): " + (executes_code(op_) ? "only plain data is accepted" : "not supported by this reader"));
      }
    }
  }
}

}  // namespace detail

PickleValue parse_pickle(const std::string& bytes, const std::string& name) {
  detail::PickleMachine machine(bytes, name);
  return machine.run();
}

PickleValue read_pickle_file(const std::string& path) { return parse_pickle(util::read_maybe_gzip_file(path), path); }

}  // namespace dls::data
