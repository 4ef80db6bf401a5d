#include "dls/util/memory_check.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace dls::util {

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0 || bytes >= 100) {
    std::snprintf(text, sizeof text, "%.0f %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(text, sizeof text, bytes >= 10 ? "%.1f %s" : "%.2f %s", bytes, kUnits[unit]);
  }
  return text;
}

void check_fits_in_memory(double need_bytes, const std::string& what, const std::string& advice,
                          const std::optional<AvailableMemory>& available) {
  if (!available || !(need_bytes > static_cast<double>(available->bytes))) return;
  throw std::runtime_error(what + " need about " + format_bytes(need_bytes) + ", " +
                           format_bytes(static_cast<double>(available->bytes)) + " available (" + available->source +
                           "); " + advice);
}

}  // namespace dls::util
