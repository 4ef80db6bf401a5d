// Fixtures written by Python scripts with torch.save of plain data (dicts, ints, tensors):
// torch::pickle_load reads that zip format directly, so no converter is needed.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include "dls/util/file_io.h"
#include "support/test_paths.h"

namespace dls::testing {

// tests/fixtures/<relative_path> as the dict it holds.
inline c10::impl::GenericDict load_torch_fixture(const std::string& relative_path) {
  const std::string bytes = util::read_file(fixtures_dir() + "/" + relative_path);
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
}

inline c10::IValue entry(const c10::impl::GenericDict& dict, const std::string& key) {
  const auto found = dict.find(c10::IValue(key));
  if (found == dict.end()) throw std::runtime_error("fixture has no entry '" + key + "'");
  return found->value();
}

}  // namespace dls::testing
