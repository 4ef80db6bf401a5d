// A pickle machine for exactly what torch.save writes for a state dict: the opcodes of
// protocols 2-4 that build ints, strings, tuples, lists and dicts, plus these Python
// globals, each "called" here by C++ code instead of being imported:
//   collections.OrderedDict()                      -> an empty dict
//   torch._utils._rebuild_tensor_v2(storage, ...)  -> a tensor record over a storage
//   torch._utils._rebuild_parameter(tensor, ...)   -> the tensor
//   torch.<Type>Storage                            -> the type of a persistent storage id
//   torch.jit._pickle.restore_type_tag(dict, type) -> the dict (torch::pickle_save writes it)
// Any other global is refused with its name.
#include "dls/dlstudio/state_dict_pickle.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace dls::dlstudio {

namespace {

// The tensors may repeat their storages' elements at most this many times over (tied weights
// share a storage), so that a small file cannot ask for gigabytes.
constexpr std::int64_t kMaxElementsPerStorageElement = 8;
// Each opcode makes at most one value (about 100 bytes), so this bounds the memory a pickle
// can take to a few hundred MB; a state dict needs about 25 per tensor.
constexpr std::size_t kMaxOpcodes = 4000000;

struct Container;

struct Value {
  enum class Kind { kNone, kInt, kString, kTuple, kList, kDict, kGlobal, kStorage, kTensor };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;  // int; tensor: its element count (product of the sizes)
  // A string's or global's ("module.name") text, shared by copies: a memo fetch copies no
  // characters, so that a long string fetched many times costs one copy of it.
  std::shared_ptr<const std::string> shared_text;
  std::shared_ptr<Container> container;        // tuple, list, dict
  std::shared_ptr<const TensorRecord> tensor;  // tensor; storage: key, type and numel only

  const std::string& text() const {
    static const std::string none;
    return shared_text ? *shared_text : none;
  }
  void set_text(std::string text) { shared_text = std::make_shared<const std::string>(std::move(text)); }
};
using Values = std::vector<Value>;

// The items of a tuple, list or dict (dict: key, value, key, value, ...), shared by every
// Value that refers to it. Frozen once anything else refers to it (an item of another
// container, a memo fetch): nothing can be added after that, so `depth` (1 + its deepest
// item's) stays true and no container can come to contain itself.
struct Container {
  Values items;
  int depth = 1;
  bool frozen = false;
};

Value make(Value::Kind kind) {
  Value value;
  value.kind = kind;
  if (kind == Value::Kind::kTuple || kind == Value::Kind::kList || kind == Value::Kind::kDict) {
    value.container = std::make_shared<Container>();
  }
  return value;
}

// "an int", "a tuple", ... for messages.
std::string a_kind(Value::Kind kind) {
  static const char* const names[] = {"None",   "an int",   "a string",  "a tuple", "a list",
                                      "a dict", "a global", "a storage", "a tensor"};
  return names[static_cast<int>(kind)];
}

class StateDictMachine {
 public:
  explicit StateDictMachine(const std::string& pickle) : in_(pickle) {}

  Value run();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("data.pkl byte " + std::to_string(op_offset_) + ": " + what);
  }
  std::string_view take(std::size_t n) {
    if (n > in_.size() - pos_) fail("truncated pickle");
    const std::string_view out(in_.data() + pos_, n);
    pos_ += n;
    return out;
  }
  std::uint64_t read_le(int n) {
    const auto bytes = take(static_cast<std::size_t>(n));
    std::uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    return value;
  }
  std::string read_line() {
    const auto end = in_.find('\n', pos_);
    if (end == std::string::npos) fail("truncated pickle");
    std::string line = in_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return line;
  }
  Value pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("pop from an empty stack");
    Value top = std::move(stack_.back());
    stack_.pop_back();
    return top;
  }
  Values pop_to_mark() {
    if (marks_.empty()) fail("no MARK");
    Values items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  Value& top() {
    if (stack_.empty()) fail("empty stack");
    return stack_.back();
  }
  // `item` becomes an item of `into`: a container item is frozen from now on.
  void place(Value item, Container& into) {
    if (item.container) {
      item.container->frozen = true;
      into.depth = std::max(into.depth, item.container->depth + 1);
      if (into.depth > kMaxStateDictNesting)
        fail("containers nested deeper than " + std::to_string(kMaxStateDictNesting));
    }
    into.items.push_back(std::move(item));
  }
  void push_tuple(Values items) {
    Value tuple = make(Value::Kind::kTuple);
    for (auto& item : items) place(std::move(item), *tuple.container);
    stack_.push_back(std::move(tuple));
  }
  // APPEND(S) and SETITEM(S): adds `items` to the list or dict on top of the stack.
  void add_items(Value::Kind kind, Values items) {
    Value& target = top();
    if (target.kind != kind) fail("adding items to " + a_kind(target.kind) + ", not " + a_kind(kind));
    if (target.container->frozen) fail("adding items to " + a_kind(kind) + " that is already referred to");
    if (kind == Value::Kind::kDict && items.size() % 2 != 0) fail("SETITEMS with a key without a value");
    for (auto& item : items) place(std::move(item), *target.container);
  }
  void memo_put(std::uint64_t key) { memo_[key] = top(); }
  Value memo_get(std::uint64_t key) const {
    const auto found = memo_.find(key);
    if (found == memo_.end()) fail("undefined memo key " + std::to_string(key));
    if (found->second.container) found->second.container->frozen = true;
    return found->second;
  }
  std::vector<std::int64_t> ints_of(const Value& tuple, const char* what) const;
  Value reduce(const Value& callable, const Value& args);
  Value storage(const Value& persistent_id);
  Value tensor(const Values& args);

  const std::string& in_;
  std::size_t pos_ = 0, op_offset_ = 0;
  Values stack_;
  std::vector<std::size_t> marks_;
  std::map<std::uint64_t, Value> memo_;
};

std::vector<std::int64_t> StateDictMachine::ints_of(const Value& tuple, const char* what) const {
  if (tuple.kind != Value::Kind::kTuple)
    fail(std::string("a tensor's ") + what + " is " + a_kind(tuple.kind) + ", not a tuple");
  std::vector<std::int64_t> out;
  for (const auto& item : tuple.container->items) {
    if (item.kind != Value::Kind::kInt) fail(std::string("a tensor's ") + what + " holds " + a_kind(item.kind));
    out.push_back(item.integer);
  }
  return out;
}

Value StateDictMachine::storage(const Value& pid) {
  // ('storage', torch.FloatStorage, key, location, numel)
  const auto refuse = [this] { fail("unsupported persistent id (not a tensor storage)"); };
  if (pid.kind != Value::Kind::kTuple || pid.container->items.size() != 5) refuse();
  const auto& p = pid.container->items;
  if (p[0].text() != "storage" || p[1].kind != Value::Kind::kGlobal || storage_element_bytes(p[1].text()) == 0 ||
      p[2].kind != Value::Kind::kString || p[4].kind != Value::Kind::kInt) {
    refuse();
  }
  const auto element_bytes = static_cast<std::int64_t>(storage_element_bytes(p[1].text()));
  if (p[4].integer < 0 || p[4].integer > std::numeric_limits<std::int64_t>::max() / element_bytes) {
    fail("storage " + p[2].text() + " of " + std::to_string(p[4].integer) + " elements");
  }
  auto record = std::make_shared<TensorRecord>();
  record->storage_key = p[2].text();
  record->storage_type = p[1].text();
  record->storage_numel = p[4].integer;
  Value value = make(Value::Kind::kStorage);
  value.tensor = std::move(record);
  return value;
}

// _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks[, metadata]),
// checked to lie inside the storage.
Value StateDictMachine::tensor(const Values& a) {
  if (a.size() < 4 || a[0].kind != Value::Kind::kStorage || a[1].kind != Value::Kind::kInt) {
    fail("_rebuild_tensor_v2 without a storage and an offset");
  }
  auto record = std::make_shared<TensorRecord>(*a[0].tensor);
  record->offset = a[1].integer;
  record->sizes = ints_of(a[2], "size");
  record->strides = ints_of(a[3], "stride");
  const auto& r = *record;
  const std::string where = "a tensor over storage " + r.storage_key + ": ";
  if (r.sizes.size() != r.strides.size()) fail(where + "sizes and strides of different lengths");
  if (r.offset < 0 || r.offset > r.storage_numel)
    fail(where + "offset " + std::to_string(r.offset) + " outside the storage");
  std::int64_t numel = 1, last = r.offset;  // elements, and the storage index of the last one
  for (std::size_t d = 0; d < r.sizes.size(); ++d) {
    if (r.sizes[d] < 0 || r.strides[d] < 0) fail(where + "a negative size or stride");
    if (r.sizes[d] == 0) numel = 0;
  }
  for (std::size_t d = 0; numel > 0 && d < r.sizes.size(); ++d) {
    std::int64_t step = 0;
    if (__builtin_mul_overflow(numel, r.sizes[d], &numel) ||
        __builtin_mul_overflow(r.sizes[d] - 1, r.strides[d], &step) || __builtin_add_overflow(last, step, &last)) {
      fail(where + "sizes or strides beyond 64 bits");
    }
  }
  if (numel > 0 && last >= r.storage_numel) {
    fail(where + "element " + std::to_string(last) + " beyond its " + std::to_string(r.storage_numel) + " elements");
  }
  Value value = make(Value::Kind::kTensor);
  value.integer = numel;
  value.tensor = std::move(record);
  return value;
}

Value StateDictMachine::reduce(const Value& callable, const Value& args) {
  if (callable.kind != Value::Kind::kGlobal || args.kind != Value::Kind::kTuple) fail("REDUCE of a non-global");
  const auto& a = args.container->items;
  if (callable.text() == "collections.OrderedDict" && a.empty()) return make(Value::Kind::kDict);
  if (callable.text() == "torch._utils._rebuild_tensor_v2") return tensor(a);
  if (callable.text() == "torch._utils._rebuild_parameter" && !a.empty() && a[0].kind == Value::Kind::kTensor) {
    return a[0];
  }
  if (callable.text() == "torch.jit._pickle.restore_type_tag" && !a.empty() && a[0].kind == Value::Kind::kDict) {
    return a[0];  // torch::pickle_save's typed dict (our own files)
  }
  fail("refusing to call " + callable.text() + ": a state dict holds only tensors");
}

Value StateDictMachine::run() {
  for (std::size_t executed = 0;; ++executed) {
    op_offset_ = pos_;
    if (executed == kMaxOpcodes)
      fail("more than " + std::to_string(kMaxOpcodes) + " opcodes, more than a state dict needs");
    const auto op = static_cast<unsigned char>(take(1)[0]);
    switch (op) {
      case 0x80:
        read_le(1);
        break;  // PROTO
      case 0x95:
        read_le(8);
        break;  // FRAME
      case '.':
        return pop();  // STOP
      case 'N':
        stack_.push_back(make(Value::Kind::kNone));
        break;
      case 0x88:
      case 0x89: {  // NEWTRUE, NEWFALSE
        Value flag = make(Value::Kind::kInt);
        flag.integer = op == 0x88;
        stack_.push_back(flag);
        break;
      }
      case 'K':
      case 'M':
      case 'J':
      case 0x8a: {  // BININT1, BININT2, BININT, LONG1
        Value number = make(Value::Kind::kInt);
        if (op == 'K') number.integer = static_cast<std::int64_t>(read_le(1));
        if (op == 'M') number.integer = static_cast<std::int64_t>(read_le(2));
        if (op == 'J') number.integer = static_cast<std::int32_t>(read_le(4));
        if (op == 0x8a) {
          const auto length = static_cast<int>(read_le(1));
          if (length > 8) fail("integer wider than 64 bits");
          const auto raw = length == 0 ? 0 : read_le(length);
          const bool negative = length > 0 && length < 8 && (raw >> (8 * length - 1)) & 1;
          number.integer = static_cast<std::int64_t>(negative ? raw | (~std::uint64_t{0} << (8 * length)) : raw);
        }
        stack_.push_back(number);
        break;
      }
      case 0x8c:
      case 'X':
      case 0x8d: {  // SHORT_BINUNICODE, BINUNICODE(8)
        Value text = make(Value::Kind::kString);
        text.set_text(std::string(take(static_cast<std::size_t>(read_le(op == 0x8c ? 1 : op == 'X' ? 4 : 8)))));
        stack_.push_back(std::move(text));
        break;
      }
      case 'c': {  // GLOBAL "module\nname\n"
        Value global = make(Value::Kind::kGlobal);
        const auto module = read_line();
        global.set_text(module + "." + read_line());
        stack_.push_back(std::move(global));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        const Value name = pop(), module = pop();
        if (name.kind != Value::Kind::kString || module.kind != Value::Kind::kString)
          fail("STACK_GLOBAL of non-strings");
        Value global = make(Value::Kind::kGlobal);
        global.set_text(module.text() + "." + name.text());
        stack_.push_back(std::move(global));
        break;
      }
      case ')':
        push_tuple({});
        break;
      case 't':
        push_tuple(pop_to_mark());
        break;
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        Values items(static_cast<std::size_t>(op - 0x84));
        for (auto item = items.rbegin(); item != items.rend(); ++item) *item = pop();
        push_tuple(std::move(items));
        break;
      }
      case ']':
        stack_.push_back(make(Value::Kind::kList));
        break;
      case '}':
        stack_.push_back(make(Value::Kind::kDict));
        break;
      case 'a':
        add_items(Value::Kind::kList, {pop()});
        break;  // APPEND
      case 'e':
        add_items(Value::Kind::kList, pop_to_mark());
        break;     // APPENDS
      case 's': {  // SETITEM
        Value value = pop(), key = pop();
        add_items(Value::Kind::kDict, {std::move(key), std::move(value)});
        break;
      }
      case 'u':
        add_items(Value::Kind::kDict, pop_to_mark());
        break;  // SETITEMS
      case '(':
        marks_.push_back(stack_.size());
        break;  // MARK
      case 'q':
        memo_put(read_le(1));
        break;  // BINPUT
      case 'r':
        memo_put(read_le(4));
        break;  // LONG_BINPUT
      case 0x94:
        memo_put(memo_.size());
        break;  // MEMOIZE
      case 'h':
        stack_.push_back(memo_get(read_le(1)));
        break;  // BINGET
      case 'j':
        stack_.push_back(memo_get(read_le(4)));
        break;  // LONG_BINGET
      case 'Q':
        stack_.push_back(storage(pop()));
        break;     // BINPERSID
      case 'R': {  // REDUCE
        const Value args = pop(), callable = pop();
        stack_.push_back(reduce(callable, args));
        break;
      }
      case 'b': {  // BUILD: the OrderedDict's _metadata
        const Value state = pop();
        if (top().kind != Value::Kind::kDict || state.kind != Value::Kind::kDict) fail("BUILD of a non-dict");
        break;
      }
      default: {
        static const char* const hex = "0123456789abcdef";
        fail(std::string("unsupported pickle opcode 0x") + hex[op >> 4] + hex[op & 15] + " for a state dict");
      }
    }
  }
}

}  // namespace

std::size_t storage_element_bytes(const std::string& storage_type) {
  static const std::map<std::string, std::size_t> bytes{
      {"torch.FloatStorage", 4}, {"torch.DoubleStorage", 8}, {"torch.HalfStorage", 2},  {"torch.BFloat16Storage", 2},
      {"torch.LongStorage", 8},  {"torch.IntStorage", 4},    {"torch.ShortStorage", 2}, {"torch.CharStorage", 1},
      {"torch.ByteStorage", 1},  {"torch.BoolStorage", 1}};
  const auto found = bytes.find(storage_type);
  return found == bytes.end() ? 0 : found->second;
}

std::vector<std::pair<std::string, TensorRecord>> parse_state_dict_pickle(const std::string& pickle) {
  const Value root = StateDictMachine(pickle).run();
  if (root.kind != Value::Kind::kDict)
    throw std::runtime_error("data.pkl: " + a_kind(root.kind) + ", not a dict of tensors");
  std::vector<std::pair<std::string, TensorRecord>> entries;
  std::map<std::string, std::int64_t> storage_numel;  // of the distinct storages
  constexpr auto kMost = std::numeric_limits<std::int64_t>::max();
  std::int64_t tensor_elements = 0, stored = 0;  // both saturate at kMost
  const auto& items = root.container->items;
  for (std::size_t i = 0; i < items.size(); i += 2) {
    if (items[i].kind != Value::Kind::kString || items[i + 1].kind != Value::Kind::kTensor) {
      throw std::runtime_error("data.pkl: entry " + std::to_string(i / 2) + " is not a name and a tensor");
    }
    const auto& record = *items[i + 1].tensor;
    auto& numel = storage_numel[record.storage_key];
    numel = std::max(numel, record.storage_numel);
    if (__builtin_add_overflow(tensor_elements, items[i + 1].integer, &tensor_elements)) tensor_elements = kMost;
    entries.emplace_back(items[i].text(), record);
  }
  for (const auto& [key, numel] : storage_numel) {
    if (__builtin_add_overflow(stored, numel, &stored)) stored = kMost;
  }
  if (tensor_elements / kMaxElementsPerStorageElement > stored) {
    throw std::runtime_error("data.pkl: its tensors hold " + std::to_string(tensor_elements) + " elements, more than " +
                             std::to_string(kMaxElementsPerStorageElement) + " times the " + std::to_string(stored) +
                             " of their storages");
  }
  return entries;
}

}  // namespace dls::dlstudio
