#include "dls/util/available_memory.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace dls::util {

namespace {

namespace fs = std::filesystem;

// v1 reports "no limit" as a page-rounded 2^63 - 1; anything from 2^62 up is no limit.
constexpr std::uint64_t kNoLimit = std::uint64_t{1} << 62;

std::optional<std::uint64_t> parse_number(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t value = 0;
  if (!(in >> value)) return std::nullopt;
  std::string rest;
  if (in >> rest) return std::nullopt;
  return value;
}

std::optional<std::string> read_small_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One cgroup hierarchy: where it is mounted and the names of its limit and usage files.
struct Hierarchy {
  fs::path mount;
  const char* limit_file;
  const char* usage_file;
};

// The smallest headroom on `cgroup_path` (a path inside the hierarchy) and its parents up to
// the mount; the path need not exist there (a cgroup namespace shows its own root only).
std::optional<AvailableMemory> hierarchy_headroom(const Hierarchy& hierarchy, const std::string& cgroup_path) {
  std::vector<fs::path> dirs{hierarchy.mount};  // the mount, then one folder deeper each
  for (const auto& part : fs::path(cgroup_path).relative_path()) {
    if (!part.empty() && part != "." && part != "..") dirs.push_back(dirs.back() / part);
  }
  std::optional<AvailableMemory> smallest;
  for (const auto& dir : dirs) {
    const auto limit = read_small_file(dir / hierarchy.limit_file);
    const auto usage = read_small_file(dir / hierarchy.usage_file);
    if (!limit || !usage) continue;
    const auto headroom = parse_cgroup_headroom(*limit, *usage);
    if (headroom && (!smallest || *headroom < smallest->bytes)) {
      smallest = AvailableMemory{*headroom, std::string("cgroup ") + hierarchy.limit_file};
    }
  }
  return smallest;
}

std::vector<std::string> split(const std::string& text, char separator, std::size_t parts) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (fields.size() + 1 < parts) {
    const auto cut = text.find(separator, start);
    if (cut == std::string::npos) break;
    fields.push_back(text.substr(start, cut - start));
    start = cut + 1;
  }
  fields.push_back(text.substr(start));
  return fields;
}

bool lists_memory(const std::string& controllers) {
  for (const auto& name : split(controllers, ',', std::string::npos)) {
    if (name == "memory") return true;
  }
  return false;
}

// The headroom of the process's cgroups, v1 memory controller and v2 alike.
std::optional<AvailableMemory> cgroup_headroom(const fs::path& root) {
  const auto cgroups = read_small_file(root / "proc/self/cgroup");
  if (!cgroups) return std::nullopt;
  const fs::path mounts = root / "sys/fs/cgroup";
  // v2 alone is mounted at /sys/fs/cgroup; beside v1 ("hybrid") at /sys/fs/cgroup/unified.
  const fs::path v2_mount = fs::exists(mounts / "cgroup.controllers") ? mounts : mounts / "unified";
  std::optional<AvailableMemory> smallest;
  std::istringstream lines(*cgroups);
  for (std::string line; std::getline(lines, line);) {
    const auto fields = split(line, ':', 3);  // id:controllers:path
    if (fields.size() != 3) continue;
    std::optional<AvailableMemory> headroom;
    if (fields[0] == "0" && fields[1].empty()) {
      headroom = hierarchy_headroom({v2_mount, "memory.max", "memory.current"}, fields[2]);
    } else if (lists_memory(fields[1])) {
      headroom = hierarchy_headroom({mounts / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"}, fields[2]);
    }
    if (headroom && (!smallest || headroom->bytes < smallest->bytes)) smallest = headroom;
  }
  return smallest;
}

// The number after `name` at the start of one of the text's lines, in bytes: with unit "kB"
// the number is KiB; with unit "" a byte count ("unlimited" gives std::nullopt).
std::optional<std::uint64_t> line_value(const std::string& text, const std::string& name, const std::string& unit) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0) continue;
    std::istringstream fields(line.substr(name.size()));
    std::uint64_t value = 0;
    std::string found_unit;
    if (!(fields >> value)) return std::nullopt;
    if (unit.empty()) return value;
    if (!(fields >> found_unit) || found_unit != unit || value > (~std::uint64_t{0} >> 10)) return std::nullopt;
    return value << 10;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_mem_available(const std::string& meminfo) {
  return line_value(meminfo, "MemAvailable:", "kB");
}

std::optional<std::uint64_t> parse_cgroup_headroom(const std::string& limit, const std::string& usage) {
  const auto max = parse_number(limit);
  const auto used = parse_number(usage);
  if (!max || !used || *max >= kNoLimit) return std::nullopt;
  return *max > *used ? *max - *used : 0;
}

std::optional<std::uint64_t> parse_address_space_headroom(const std::string& limits, const std::string& status) {
  // "Max address space         4294967296           unlimited            bytes" (soft, hard)
  const auto limit = line_value(limits, "Max address space", "");
  const auto mapped = line_value(status, "VmSize:", "kB");  // "VmSize:\t 3892 kB"
  if (!limit || !mapped || *limit >= kNoLimit) return std::nullopt;
  return *limit > *mapped ? *limit - *mapped : 0;
}

std::optional<AvailableMemory> available_memory(const std::string& root) {
  std::optional<AvailableMemory> available = cgroup_headroom(root);
  const auto take_if_smaller = [&](std::optional<std::uint64_t> bytes, const char* source) {
    if (bytes && (!available || *bytes < available->bytes)) available = AvailableMemory{*bytes, source};
  };
  if (const auto meminfo = read_small_file(fs::path(root) / "proc/meminfo")) {
    take_if_smaller(parse_mem_available(*meminfo), "MemAvailable");
  }
  const auto limits = read_small_file(fs::path(root) / "proc/self/limits");
  const auto status = read_small_file(fs::path(root) / "proc/self/status");
  if (limits && status) {
    take_if_smaller(parse_address_space_headroom(*limits, *status), "address-space limit (ulimit -v)");
  }
  return available;
}

}  // namespace dls::util
