// The pickle inside a `torch.save(module.state_dict(), path)` file (the archive's data.pkl),
// read without LibTorch and without executing anything. It accepts exactly what a state
// dict's pickle holds -- an (Ordered)dict of names to tensors, and its `_metadata` (ignored)
// -- and refuses every other Python global with its name. A tensor comes out as the place
// of its elements in a storage record of the archive; state_dict_file.cpp reads the storages
// and makes the tensors.
//
// The file is untrusted: every length is checked against the bytes left, a tensor must lie
// inside its storage (offset, sizes and strides, without overflow), and containers may be
// filled only before anything else refers to them (as every pickler writes them), so that a
// pickle can build neither a container that contains itself nor nesting deeper than
// kMaxStateDictNesting (a state dict nests 3 deep).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dls::dlstudio {

constexpr int kMaxStateDictNesting = 32;

// Where a tensor's elements lie: element [i0, i1, ...] is storage element
// offset + i0 * strides[0] + i1 * strides[1] + ... of the archive's record data/<storage_key>.
struct TensorRecord {
  std::string storage_key;
  std::string storage_type;        // "torch.FloatStorage", ... (storage_element_bytes knows them)
  std::int64_t storage_numel = 0;  // elements the storage holds, as the pickle says
  std::int64_t offset = 0;
  std::vector<std::int64_t> sizes, strides;  // the same length; none negative
};

// Bytes per element of a storage type ("torch.FloatStorage": 4); 0 for a type not known.
std::size_t storage_element_bytes(const std::string& storage_type);

// Decodes data.pkl: the dict's entries in the file's order. Throws std::runtime_error
// "data.pkl byte <offset>: <what>" for anything else.
std::vector<std::pair<std::string, TensorRecord>> parse_state_dict_pickle(const std::string& pickle);

}  // namespace dls::dlstudio
