// Refusing, before allocating, work whose memory estimate is over what the process can take
// (available_memory.h): one line with both numbers instead of the OOM killer's SIGKILL.
#pragma once

#include <optional>
#include <string>

#include "dls/util/available_memory.h"

namespace dls::util {

// "412 GiB", "21.3 GiB", "640 MiB", "12 KiB", "100 bytes": three significant digits at most.
std::string format_bytes(double bytes);

// Throws std::runtime_error "<what> need about <need>, <available> available (<source>);
// <advice>" when `need_bytes` is over `available`; does nothing when the available memory is
// unknown (std::nullopt).
void check_fits_in_memory(double need_bytes, const std::string& what, const std::string& advice,
                          const std::optional<AvailableMemory>& available = available_memory());

}  // namespace dls::util
