// The pickle of a torch.save'd state dict (the archive's data.pkl) on any bytes: refused with
// one error, or tensors that lie inside their storages, as recomputed here in 128 bits.
#include <cstdlib>
#include <exception>

#include "dls/dlstudio/state_dict_pickle.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    for (const auto& [name, record] : dls::dlstudio::parse_state_dict_pickle(dls::fuzz::as_string(data, size))) {
      if (dls::dlstudio::storage_element_bytes(record.storage_type) == 0) std::abort();
      if (record.sizes.size() != record.strides.size() || record.offset < 0 || record.storage_numel < 0) std::abort();
      __int128 last = record.offset;
      bool empty = false;
      for (std::size_t d = 0; d < record.sizes.size(); ++d) {
        if (record.sizes[d] < 0 || record.strides[d] < 0) std::abort();
        empty = empty || record.sizes[d] == 0;
        last += static_cast<__int128>(record.sizes[d] - 1) * record.strides[d];
      }
      if (!empty && last >= record.storage_numel) std::abort();
    }
  } catch (const std::exception&) {
  }
  return 0;
}
