// The settings text inside checkpoints (key=value lines) on any text: whatever reads must
// write back to text that reads to the same entries.
#include <cstdlib>
#include <exception>

#include "dls/util/key_values.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto settings = dls::util::KeyValues::from_text(dls::fuzz::as_string(data, size), "fuzz");
    const auto again = dls::util::KeyValues::from_text(settings.to_text(), "fuzz again");
    if (again.entries() != settings.entries()) std::abort();
    for (const auto& [key, value] : settings.entries()) {
      try {
        (void)settings.get_int(key);
      } catch (const std::exception&) {
      }
      try {
        (void)settings.get_double(key);
      } catch (const std::exception&) {
      }
      try {
        (void)settings.get_bool(key);
      } catch (const std::exception&) {
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
