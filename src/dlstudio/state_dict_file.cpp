// torch.save files: a zip archive (LibTorch's PyTorchStreamReader) whose data.pkl
// state_dict_pickle.h decodes without executing anything, and whose data/<key> records hold
// the storages' elements.
#include "dls/dlstudio/state_dict_file.h"

#include <fstream>
#include <cstring>
#include <map>
#include <stdexcept>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "dls/dlstudio/state_dict_pickle.h"
#include "dls/util/file_io.h"

namespace dls::dlstudio {

namespace {

torch::Dtype storage_dtype(const std::string& storage_type) {
  static const std::map<std::string, torch::Dtype> dtypes{
      {"torch.FloatStorage", torch::kFloat32}, {"torch.DoubleStorage", torch::kFloat64},
      {"torch.HalfStorage", torch::kFloat16},  {"torch.BFloat16Storage", torch::kBFloat16},
      {"torch.LongStorage", torch::kInt64},    {"torch.IntStorage", torch::kInt32},
      {"torch.ShortStorage", torch::kInt16},   {"torch.CharStorage", torch::kInt8},
      {"torch.ByteStorage", torch::kUInt8},    {"torch.BoolStorage", torch::kBool}};
  return dtypes.at(storage_type);  // parse_state_dict_pickle accepts only these
}

// The storage a record lies in, read from the archive once per key: a 1-D tensor of its
// elements. Refuses a record shorter than the pickle says, and a key the pickle gives two
// different types or sizes.
class Storages {
 public:
  explicit Storages(caffe2::serialize::PyTorchStreamReader& archive) : archive_(archive) {}

  const torch::Tensor& of(const TensorRecord& record) {
    auto found = storages_.find(record.storage_key);
    if (found == storages_.end()) {
      const auto dtype = storage_dtype(record.storage_type);
      auto [data, size] = archive_.getRecord("data/" + record.storage_key);
      const auto element_bytes = static_cast<std::size_t>(torch::elementSize(dtype));
      if (static_cast<std::size_t>(record.storage_numel) > size / element_bytes) {
        throw std::runtime_error("storage " + record.storage_key + " holds " + std::to_string(size) + " bytes, not " +
                                 std::to_string(record.storage_numel) + " elements of " +
                                 std::to_string(element_bytes));
      }
      auto elements = torch::empty({record.storage_numel}, torch::TensorOptions().dtype(dtype));
      std::memcpy(elements.data_ptr(), data.get(), static_cast<std::size_t>(record.storage_numel) * element_bytes);
      found = storages_.emplace(record.storage_key, elements).first;
    } else if (found->second.scalar_type() != storage_dtype(record.storage_type) ||
               found->second.numel() != record.storage_numel) {
      throw std::runtime_error("storage " + record.storage_key + " is given two different types or sizes");
    }
    return found->second;
  }

 private:
  caffe2::serialize::PyTorchStreamReader& archive_;
  std::map<std::string, torch::Tensor> storages_;
};

}  // namespace

StateDict read_state_dict_file(const std::string& path) {
  try {
    caffe2::serialize::PyTorchStreamReader archive(path);
    auto [data, size] = archive.getRecord("data.pkl");
    const auto records = parse_state_dict_pickle(std::string(static_cast<const char*>(data.get()), size));
    Storages storages(archive);
    StateDict tensors;
    for (const auto& [name, record] : records) {
      // parse_state_dict_pickle checked that the view lies inside the storage.
      tensors.emplace_back(name, storages.of(record).as_strided(record.sizes, record.strides, record.offset).clone());
    }
    return tensors;
  } catch (const c10::Error& error) {
    // A zip archive's first bytes (torch.save's format) that cannot be read as one: a file
    // cut short (a copy or a download that stopped), not a file of another kind.
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    const bool zip = in.read(magic, 4) && std::string(magic, 4) == std::string("PK\x03\x04", 4);
    throw std::runtime_error(path + (zip ? ": a torch.save file cut short or damaged (" : ": not a torch.save file (") +
                             error.what_without_backtrace() + ")");
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

}  // namespace dls::dlstudio
