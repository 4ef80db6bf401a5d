// Hand-written pickles of the kind torch.save writes for a state dict (protocol 2), for
// tests that vary one part at a time: a tensor's persistent storage id, offset, sizes and
// strides are pickle fragments, so a test can put in what no pickler would write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dls::test {

inline std::string pickle_global(const std::string& module, const std::string& name) {
  return "c" + module + "\n" + name + "\n";
}
inline std::string pickle_text(const std::string& s) {  // SHORT_BINUNICODE, up to 255 bytes
  return "\x8c" + std::string(1, static_cast<char>(s.size())) + s;
}
inline std::string pickle_int8(int v) { return "K" + std::string(1, static_cast<char>(v)); }  // 0..255
inline std::string pickle_int64(std::int64_t v) {  // LONG1 of 8 bytes, little-endian
  std::string out = "\x8a\x08";
  for (int i = 0; i < 8; ++i) out += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
  return out;
}
inline std::string pickle_ordered_dict() { return pickle_global("collections", "OrderedDict") + ")R"; }

// ('storage', torch.<type>, key, 'cpu', numel) as BINPERSID reads it.
inline std::string pickle_storage_id(int numel, const std::string& type = "FloatStorage",
                                     const std::string& key = "0") {
  return "(" + pickle_text("storage") + pickle_global("torch", type) + pickle_text(key) + pickle_text("cpu") +
         pickle_int8(numel) + "t";
}

// One entry `name`: _rebuild_tensor_v2(storage, offset, sizes, strides, False, OrderedDict()).
inline std::string pickle_tensor_entry(const std::string& name, const std::string& persistent_id,
                                       const std::string& offset, const std::string& sizes,
                                       const std::string& strides) {
  return pickle_text(name) + pickle_global("torch._utils", "_rebuild_tensor_v2") + "(" + persistent_id + "Q" + offset +
         sizes + strides + "\x89" + pickle_ordered_dict() + "tR";
}

// OrderedDict of the entries, then STOP.
inline std::string pickle_state_dict(const std::vector<std::string>& entries) {
  std::string pickle = "\x80\x02" + pickle_ordered_dict() + "(";
  for (const auto& entry : entries) pickle += entry;
  return pickle + "u.";
}

}  // namespace dls::test
