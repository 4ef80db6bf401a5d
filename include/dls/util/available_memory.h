// The memory this process can still take before the kernel's OOM killer ends it: the
// headroom of its cgroup (v2 memory.max - memory.current, v1 memory.limit_in_bytes -
// memory.usage_in_bytes, on the process's cgroup and every parent up to the mount's root)
// and /proc/meminfo's MemAvailable, whichever is smaller -- and, under an address-space
// limit (ulimit -v, prlimit --as), what is left of it, where a larger allocation fails.
// Programs check an estimate against it before allocating (memory_check.h), so that a model
// too big for the machine is an error line, not a SIGKILL without a word.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dls::util {

struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string source;  // "MemAvailable", or the cgroup file that limits, e.g. "cgroup memory.max"
};

// MemAvailable of /proc/meminfo's text, in bytes; std::nullopt when the line is missing or
// malformed (kernels before 3.14).
std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo);

// limit - usage of a cgroup's two files' text (v2 memory.max / memory.current, v1
// memory.limit_in_bytes / memory.usage_in_bytes), 0 when the usage is over the limit;
// std::nullopt when there is no limit ("max", or v1's "unlimited" near 2^63) or either
// text is not a number.
std::optional<std::uint64_t> parse_cgroup_headroom(const std::string& limit, const std::string& usage);

// The address space this process may still map under its soft RLIMIT_AS: /proc/self/limits'
// "Max address space" less /proc/self/status's VmSize (what it maps now), 0 when over;
// std::nullopt when unlimited or either text lacks its line or number.
std::optional<std::uint64_t> parse_address_space_headroom(const std::string& limits, const std::string& status);

// The memory available under `root` ("/" on a real system; a fixture folder in tests),
// read from root/proc/self/cgroup, root/sys/fs/cgroup/..., root/proc/meminfo and
// root/proc/self/{limits,status} (source "address-space limit (ulimit -v)"); std::nullopt
// when none of them can be read.
std::optional<AvailableMemory> available_memory(const std::string& root = "/");

}  // namespace dls::util
