#include "dls/util/runtime.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>
#include <torch/utils.h>

#include "dls/util/blas_kernels.h"

namespace dls::util {

void set_log_level(const std::string& requested) {
  const char* env = std::getenv("DLS_LOG_LEVEL");
  const std::string level = (env != nullptr && *env != '\0') ? env : requested;
  if (!level.empty()) spdlog::set_level(spdlog::level::from_str(level));
  spdlog::set_pattern("[%H:%M:%S] %^%l%$ %v");
}

RuntimeInfo detect_blas() {
  RuntimeInfo info;
  // OpenBLAS exports openblas_get_config(); the netlib reference BLAS exports only the
  // Fortran routines. Ask the dynamic linker which file serves sgemm_.
  using ConfigFn = char* (*)();
  if (auto* config = reinterpret_cast<ConfigFn>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
    info.blas = std::string("OpenBLAS (") + config() + ")";
    return info;
  }
  void* sgemm = dlsym(RTLD_DEFAULT, "sgemm_");
  Dl_info where{};
  if (sgemm != nullptr && dladdr(sgemm, &where) != 0 && where.dli_fname != nullptr) {
    // The alternatives system reaches the file through symbolic links: resolve them.
    char resolved[PATH_MAX];
    const std::string file = realpath(where.dli_fname, resolved) != nullptr ? resolved : where.dli_fname;
    info.blas = file;
    // Debian installs the reference implementation as .../blas/libblas.so.3.
    info.slow_blas = file.find("/blas/libblas") != std::string::npos;
    if (info.slow_blas) info.blas = "reference BLAS (" + file + ")";
    return info;
  }
  info.blas = "unknown (built into LibTorch)";
  return info;
}

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);         // no block of its own from mmap: all from the heap
  mallopt(M_TRIM_THRESHOLD, -1);  // -1 reads as SIZE_MAX: never give the heap's top back
#endif
}

int default_threads() {
  // A launcher that starts several processes on one machine (torchrun) sets OMP_NUM_THREADS
  // to share the cores between them.
  if (const char* omp = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(omp, &end, 10);
    if (end != omp && *end == '\0' && value > 0 && value <= 4096) return static_cast<int>(value);
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

RuntimeInfo configure_runtime(const RuntimeOptions& options) {
  set_log_level(options.log_level);
  log_blas_kernel_choice();  // what choose_blas_kernels did at the start of main, once
  if (options.keep_freed_memory) keep_freed_memory();
  RuntimeInfo info = detect_blas();
  info.threads = options.threads > 0 ? options.threads : default_threads();
  torch::set_num_threads(info.threads);
  if (info.slow_blas) {
    spdlog::warn(
        "slow reference BLAS in use ({}): install libopenblas0-openmp for ~30x faster "
        "matrix products",
        info.blas);
  } else if (!options.quiet_blas_check) {
    spdlog::debug("BLAS: {}", info.blas);
  }
  return info;
}

}  // namespace dls::util
