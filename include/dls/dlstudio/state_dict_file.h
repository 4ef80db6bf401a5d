// Files of Python's `torch.save(module.state_dict(), path)` (PyTorch >= 1.6 zip format),
// read and written without Python, for exchanging weights with DLStudio.
//
// LibTorch 1.13's torch::pickle_load cannot read them: its unpickler turns the
// collections.OrderedDict that state_dict() returns into None. The reader here accepts
// exactly what a state dict's pickle holds -- an (Ordered)dict of tensor names to tensors
// (and its `_metadata` attribute, ignored) -- and refuses every other Python global, so
// nothing in the file is executed. The writer uses torch::pickle_save (a plain dict,
// which Python's torch.load returns and load_state_dict accepts).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

namespace dls::dlstudio {

// Name -> tensor in the file's order (DLStudio's parameter names).
using StateDict = std::vector<std::pair<std::string, torch::Tensor>>;

// Throws std::runtime_error "<path>: <problem>" for a missing file, one that is not a
// torch.save zip archive, or a pickle that is not a flat dict of tensors.
StateDict read_state_dict_file(const std::string& path);

// Writes `tensors` (moved to the CPU, contiguous) as a dict in torch.save's zip format;
// throws std::runtime_error "<path>: cannot write (...)".
void write_state_dict_file(const StateDict& tensors, const std::string& path);

}  // namespace dls::dlstudio
