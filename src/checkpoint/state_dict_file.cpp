// A pickle machine for exactly what torch.save writes for a state dict: the opcodes of
// protocols 2-4 that build ints, floats, strings, tuples, lists and dicts, plus these
// Python globals, each "called" here by C++ code instead of being imported:
//   collections.OrderedDict()                      -> an empty dict
//   torch._utils._rebuild_tensor_v2(storage, ...)  -> a tensor over a storage record
//   torch._utils._rebuild_parameter(tensor, ...)   -> the tensor
//   torch.<Type>Storage                            -> the dtype of a persistent storage id
//   torch.jit._pickle.restore_type_tag(dict, type) -> the dict (torch::pickle_save writes it)
// Any other global is refused with its name.
#include "dls/checkpoint/state_dict_file.h"

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "dls/util/file_io.h"

namespace dls::checkpoint {

namespace {

struct Value;
using Values = std::vector<Value>;

struct Value {
  enum class Kind { kNone, kInt, kString, kTuple, kList, kDict, kGlobal, kTensor };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;
  std::string text;                    // string; global: "module.name"
  std::shared_ptr<Values> items;       // tuple, list; dict: key, value, key, value, ...
  torch::Tensor tensor;                // tensor; a storage is a 1-D tensor of its elements
};

Value make(Value::Kind kind) {
  Value value;
  value.kind = kind;
  if (kind == Value::Kind::kTuple || kind == Value::Kind::kList || kind == Value::Kind::kDict) {
    value.items = std::make_shared<Values>();
  }
  return value;
}

const std::map<std::string, torch::Dtype>& storage_dtypes() {
  static const std::map<std::string, torch::Dtype> dtypes{
      {"torch.FloatStorage", torch::kFloat32}, {"torch.DoubleStorage", torch::kFloat64},
      {"torch.HalfStorage", torch::kFloat16},  {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kInt64},    {"torch.IntStorage", torch::kInt32},
      {"torch.ShortStorage", torch::kInt16},   {"torch.CharStorage", torch::kInt8},
      {"torch.ByteStorage", torch::kUInt8},    {"torch.BoolStorage", torch::kBool}};
  return dtypes;
}

class StateDictUnpickler {
 public:
  StateDictUnpickler(caffe2::serialize::PyTorchStreamReader& archive, std::string pickle)
      : archive_(archive), in_(std::move(pickle)) {}

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
  void push_tuple(Values items) {
    Value tuple = make(Value::Kind::kTuple);
    *tuple.items = std::move(items);
    stack_.push_back(std::move(tuple));
  }
  void set_items(Values items) {
    Value& dict = top();
    if (dict.kind != Value::Kind::kDict || items.size() % 2 != 0) fail("SETITEMS on a non-dict");
    for (auto& item : items) dict.items->push_back(std::move(item));
  }
  Value memo_get(std::uint64_t key) const {
    const auto found = memo_.find(key);
    if (found == memo_.end()) fail("undefined memo key " + std::to_string(key));
    return found->second;
  }
  Value reduce(const Value& callable, const Value& args);
  Value storage(const Value& persistent_id);

  caffe2::serialize::PyTorchStreamReader& archive_;
  std::string in_;
  std::size_t pos_ = 0, op_offset_ = 0;
  Values stack_;
  std::vector<std::size_t> marks_;
  std::map<std::uint64_t, Value> memo_;
  std::map<std::string, torch::Tensor> storages_;  // record key -> its elements
};

std::vector<std::int64_t> ints_of(const Value& tuple) {
  std::vector<std::int64_t> out;
  for (const auto& item : *tuple.items) out.push_back(item.integer);
  return out;
}

Value StateDictUnpickler::storage(const Value& pid) {
  // ('storage', torch.FloatStorage, key, location, numel)
  const auto& p = *pid.items;
  if (pid.kind != Value::Kind::kTuple || p.size() != 5 || p[0].text != "storage" ||
      p[1].kind != Value::Kind::kGlobal || !storage_dtypes().count(p[1].text)) {
    fail("unsupported persistent id (not a tensor storage)");
  }
  const std::string& key = p[2].text;
  if (!storages_.count(key)) {
    const auto dtype = storage_dtypes().at(p[1].text);
    const std::int64_t numel = p[4].integer;
    auto [data, size] = archive_.getRecord("data/" + key);
    const auto bytes = static_cast<std::size_t>(numel) * torch::elementSize(dtype);
    if (numel < 0 || bytes > size) fail("storage " + key + " is shorter than its " + std::to_string(numel) + " elements");
    auto elements = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    std::memcpy(elements.data_ptr(), data.get(), bytes);
    storages_[key] = elements;
  }
  Value value = make(Value::Kind::kTensor);
  value.tensor = storages_[key];
  return value;
}

Value StateDictUnpickler::reduce(const Value& callable, const Value& args) {
  if (callable.kind != Value::Kind::kGlobal || args.kind != Value::Kind::kTuple) fail("REDUCE of a non-global");
  const auto& a = *args.items;
  if (callable.text == "collections.OrderedDict" && a.empty()) return make(Value::Kind::kDict);
  if (callable.text == "torch._utils._rebuild_tensor_v2" && a.size() >= 4 &&
      a[0].kind == Value::Kind::kTensor) {
    Value tensor = make(Value::Kind::kTensor);
    tensor.tensor = a[0].tensor.as_strided(ints_of(a[2]), ints_of(a[3]), a[1].integer).clone();
    return tensor;
  }
  if (callable.text == "torch._utils._rebuild_parameter" && !a.empty() && a[0].kind == Value::Kind::kTensor) {
    return a[0];
  }
  if (callable.text == "torch.jit._pickle.restore_type_tag" && !a.empty() && a[0].kind == Value::Kind::kDict) {
    return a[0];  // torch::pickle_save's typed dict (our own files)
  }
  fail("refusing to call " + callable.text + ": a state dict holds only tensors");
}

Value StateDictUnpickler::run() {
  while (true) {
    op_offset_ = pos_;
    const auto op = static_cast<unsigned char>(take(1)[0]);
    switch (op) {
      case 0x80: read_le(1); break;                          // PROTO
      case 0x95: read_le(8); break;                          // FRAME
      case '.': return pop();                                // STOP
      case 'N': stack_.push_back(make(Value::Kind::kNone)); break;
      case 0x88: case 0x89: {                                // NEWTRUE, NEWFALSE
        Value flag = make(Value::Kind::kInt);
        flag.integer = op == 0x88;
        stack_.push_back(flag);
        break;
      }
      case 'K': case 'M': case 'J': case 0x8a: {             // BININT1, BININT2, BININT, LONG1
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
      case 0x8c: case 'X': case 0x8d: {                      // SHORT_BINUNICODE, BINUNICODE(8)
        Value text = make(Value::Kind::kString);
        text.text = std::string(take(static_cast<std::size_t>(read_le(op == 0x8c ? 1 : op == 'X' ? 4 : 8))));
        stack_.push_back(std::move(text));
        break;
      }
      case 'c': {                                            // GLOBAL "module\nname\n"
        Value global = make(Value::Kind::kGlobal);
        const auto module = read_line();
        global.text = module + "." + read_line();
        stack_.push_back(std::move(global));
        break;
      }
      case 0x93: {                                           // STACK_GLOBAL
        const Value name = pop(), module = pop();
        Value global = make(Value::Kind::kGlobal);
        global.text = module.text + "." + name.text;
        stack_.push_back(std::move(global));
        break;
      }
      case ')': push_tuple({}); break;
      case 't': push_tuple(pop_to_mark()); break;
      case 0x85: case 0x86: case 0x87: {                     // TUPLE1..3
        Values items(static_cast<std::size_t>(op - 0x84));
        for (auto item = items.rbegin(); item != items.rend(); ++item) *item = pop();
        push_tuple(std::move(items));
        break;
      }
      case ']': stack_.push_back(make(Value::Kind::kList)); break;
      case '}': stack_.push_back(make(Value::Kind::kDict)); break;
      case 'a': case 'e': {                                  // APPEND, APPENDS
        Values items = op == 'a' ? Values{pop()} : pop_to_mark();
        if (top().kind != Value::Kind::kList) fail("APPEND to a non-list");
        for (auto& item : items) top().items->push_back(std::move(item));
        break;
      }
      case 's': {                                            // SETITEM
        Value value = pop(), key = pop();
        set_items({std::move(key), std::move(value)});
        break;
      }
      case 'u': set_items(pop_to_mark()); break;             // SETITEMS
      case '(': marks_.push_back(stack_.size()); break;      // MARK
      case 'q': memo_[read_le(1)] = top(); break;            // BINPUT
      case 'r': memo_[read_le(4)] = top(); break;            // LONG_BINPUT
      case 0x94: memo_[memo_.size()] = top(); break;         // MEMOIZE
      case 'h': stack_.push_back(memo_get(read_le(1))); break;
      case 'j': stack_.push_back(memo_get(read_le(4))); break;
      case 'Q': stack_.push_back(storage(pop())); break;     // BINPERSID
      case 'R': {                                            // REDUCE
        const Value args = pop(), callable = pop();
        stack_.push_back(reduce(callable, args));
        break;
      }
      case 'b': {                                            // BUILD: the OrderedDict's _metadata
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

StateDict read_state_dict_file(const std::string& path) {
  try {
    caffe2::serialize::PyTorchStreamReader archive(path);
    auto [data, size] = archive.getRecord("data.pkl");
    StateDictUnpickler unpickler(archive, std::string(static_cast<const char*>(data.get()), size));
    const Value root = unpickler.run();
    if (root.kind != Value::Kind::kDict) throw std::runtime_error("not a dict of tensors");
    StateDict tensors;
    const auto& items = *root.items;
    for (std::size_t i = 0; i < items.size(); i += 2) {
      if (items[i].kind != Value::Kind::kString || items[i + 1].kind != Value::Kind::kTensor) {
        throw std::runtime_error("entry " + std::to_string(i / 2) + " is not a name and a tensor");
      }
      tensors.emplace_back(items[i].text, items[i + 1].tensor);
    }
    return tensors;
  } catch (const c10::Error& error) {
    throw std::runtime_error(path + ": not a torch.save file (" + error.what_without_backtrace() + ")");
  } catch (const std::exception& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
}

void write_state_dict_file(const StateDict& tensors, const std::string& path) {
  c10::Dict<std::string, torch::Tensor> dict;
  for (const auto& [name, tensor] : tensors) dict.insert(name, tensor.detach().to(torch::kCPU).contiguous());
  const auto bytes = torch::pickle_save(c10::IValue(dict));
  util::write_text_atomically(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace dls::checkpoint
