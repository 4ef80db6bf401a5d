#include "dls/util/blas_kernels.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

namespace dls::util {

namespace {

// What choose_blas_kernels has to say, kept until the program's logger is set up.
struct Note {
  bool warning = false;
  std::string text;
};

std::optional<Note>& pending_note() {
  static std::optional<Note> note;
  return note;
}

std::optional<std::string> env_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool openblas_dynamic_arch() {
  using ConfigFn = char* (*)();
  auto* config = reinterpret_cast<ConfigFn>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  const char* text = config != nullptr ? config() : nullptr;
  return text != nullptr && std::strstr(text, "DYNAMIC_ARCH") != nullptr;
}

std::string chose(const std::string& core, const CpuFeatures& cpu) {
  return "OpenBLAS chose its " + core + " kernels for this CPU (" + feature_names(cpu) + ")";
}

// In the process that choose_blas_kernels restarted (same pid): what happened, from the
// marker "<pid>:<core chosen before>" and the kernels OpenBLAS uses now.
void note_restart(const std::string& marker) {
  const auto colon = marker.find(':');
  if (colon == std::string::npos || marker.substr(0, colon) != std::to_string(::getpid())) return;
  const std::string before = marker.substr(colon + 1);
  const std::string asked = env_value("OPENBLAS_CORETYPE").value_or("");
  const std::string now = openblas_core_in_use();
  std::string text = chose(before, detect_cpu_features()) + ": restarted with OPENBLAS_CORETYPE=" + asked;
  if (is_pre_avx2_openblas_core(now)) {
    pending_note() = Note{true, text + ", but OpenBLAS still uses its " + now + " kernels"};
  } else {
    pending_note() = Note{false, text};
  }
}

// Started as `ld.so program ...`, /proc/self/exe is the dynamic loader, which would take
// the program's first argument for the program.
bool started_through_the_loader() {
  char target[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  const char* slash = std::strrchr(target, '/');
  const std::string name = slash != nullptr ? slash + 1 : target;
  return name.rfind("ld-linux", 0) == 0 || name.rfind("ld.so", 0) == 0;
}

}  // namespace

CpuFeatures detect_cpu_features() {
  CpuFeatures cpu;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  cpu.avx2 = __builtin_cpu_supports("avx2") != 0;
  cpu.fma = __builtin_cpu_supports("fma") != 0;
  cpu.avx512f = __builtin_cpu_supports("avx512f") != 0;
  cpu.avx512bw = __builtin_cpu_supports("avx512bw") != 0;
  cpu.avx512vl = __builtin_cpu_supports("avx512vl") != 0;
  cpu.avx512dq = __builtin_cpu_supports("avx512dq") != 0;
#endif
  return cpu;
}

std::string feature_names(const CpuFeatures& cpu) {
  std::string names;
  const std::pair<bool, const char*> features[] = {{cpu.avx2, "avx2"},         {cpu.fma, "fma"},
                                                   {cpu.avx512f, "avx512f"},   {cpu.avx512bw, "avx512bw"},
                                                   {cpu.avx512vl, "avx512vl"}, {cpu.avx512dq, "avx512dq"}};
  for (const auto& [present, name] : features) {
    if (present) names += (names.empty() ? "" : " ") + std::string(name);
  }
  return names.empty() ? "none" : names;
}

// OpenBLAS exports it; another BLAS does not (runtime.cpp's detect_blas asks the same way).
std::string openblas_core_in_use() {
  using NameFn = char* (*)();
  auto* name = reinterpret_cast<NameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* core = name != nullptr ? name() : nullptr;
  return core != nullptr ? core : "";
}

BlasKernelFacts blas_kernel_facts() {
  BlasKernelFacts facts;
  facts.openblas_core = openblas_core_in_use();
  if (facts.openblas_core.empty()) return facts;  // not OpenBLAS: nothing to choose
  if (const auto stand_in = env_value(kBlasCoreStandInVariable)) facts.openblas_core = *stand_in;
  facts.dynamic_arch = openblas_dynamic_arch();
  facts.cpu = detect_cpu_features();
  facts.coretype = env_value("OPENBLAS_CORETYPE");
  facts.restarted = env_value(kBlasRestartedVariable);
  return facts;
}

bool is_pre_avx2_openblas_core(const std::string& core) {
  // OpenBLAS's x86 core names (driver/others/dynamic.c) before Haswell, Zen, SkylakeX,
  // Cooperlake and SapphireRapids, whose kernels use AVX2 (Prescott is its fallback for an
  // unknown model).
  static const char* const kPreAvx2[] = {"katmai",      "coppermine", "northwood",    "prescott",   "banias",
                                         "atom",        "core2",      "penryn",       "dunnington", "nehalem",
                                         "athlon",      "opteron",    "opteron_sse3", "barcelona",  "nano",
                                         "sandybridge", "bobcat",     "bulldozer",    "piledriver", "steamroller"};
  const std::string name = lower(core);
  return std::any_of(std::begin(kPreAvx2), std::end(kPreAvx2), [&](const char* old) { return name == old; });
}

std::optional<std::string> blas_core_type_to_restart_with(const BlasKernelFacts& facts) {
  if (facts.openblas_core.empty() || !facts.dynamic_arch) return std::nullopt;  // no choice to correct
  if (facts.coretype.has_value()) return std::nullopt;   // the user's (or an earlier restart's) choice
  if (facts.restarted.has_value()) return std::nullopt;  // never twice
  if (!is_pre_avx2_openblas_core(facts.openblas_core)) return std::nullopt;
  const CpuFeatures& cpu = facts.cpu;
  if (!cpu.avx2 || !cpu.fma) return std::nullopt;  // the old kernels are what this CPU runs
  if (cpu.avx512f && cpu.avx512bw && cpu.avx512vl && cpu.avx512dq) return "SKYLAKEX";
  return "HASWELL";
}

void choose_blas_kernels(char** argv) {
  if (const auto marker = env_value(kBlasRestartedVariable)) {
    note_restart(*marker);
    return;
  }
  const BlasKernelFacts facts = blas_kernel_facts();
  const auto core_type = blas_core_type_to_restart_with(facts);
  if (!core_type || argv == nullptr || argv[0] == nullptr) return;

  const std::string why = chose(facts.openblas_core, facts.cpu);
  const std::string advice = "; set OPENBLAS_CORETYPE=" + *core_type + " for its faster kernels";
  if (started_through_the_loader()) {
    pending_note() = Note{true, why + ": not restarted (started through the dynamic loader)" + advice};
    return;
  }
  // The environment as it is, plus the two variables (neither is set: see the decision).
  std::vector<std::string> added = {
      "OPENBLAS_CORETYPE=" + *core_type,
      std::string(kBlasRestartedVariable) + "=" + std::to_string(::getpid()) + ":" + facts.openblas_core};
  std::vector<char*> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) env.push_back(*entry);
  for (auto& entry : added) env.push_back(entry.data());
  env.push_back(nullptr);
  std::fflush(nullptr);
  ::execve("/proc/self/exe", argv, env.data());
  pending_note() = Note{true, why + ": restarting with OPENBLAS_CORETYPE=" + *core_type + " failed (" +
                                  std::strerror(errno) + ")" + advice};
}

void log_blas_kernel_choice() {
  auto& note = pending_note();
  if (!note) return;
  if (note->warning) {
    spdlog::warn("{}", note->text);
  } else {
    spdlog::info("{}", note->text);
  }
  note.reset();
}

}  // namespace dls::util
