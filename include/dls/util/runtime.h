// Process-wide set-up shared by every program: logging level, intra-op threads, a check
// of the BLAS library that LibTorch ended up using, and the choice of device.
#pragma once

#include <string>

#include <torch/types.h>

namespace dls::util {

struct RuntimeOptions {
  int threads = 0;                  // intra-op threads; 0 = number of cores
  std::string log_level = "info";   // trace|debug|info|warn|error|off (env DLS_LOG_LEVEL wins)
  bool quiet_blas_check = false;    // do not log the BLAS line (tests)
};

struct RuntimeInfo {
  int threads = 1;          // intra-op threads in effect
  std::string blas;         // "OpenBLAS ...", "reference BLAS (...)", or "unknown"
  bool slow_blas = false;   // the netlib reference BLAS is loaded
};

// Applies the options; logs one warning line when the slow reference BLAS is in use.
RuntimeInfo configure_runtime(const RuntimeOptions& options);

// Identifies the BLAS library that serves sgemm_ in this process.
RuntimeInfo detect_blas();

// "cpu", "cuda" or "auto" (CUDA when LibTorch has it and a GPU is present).
// Throws std::invalid_argument when CUDA is asked for but not available.
torch::Device select_device(const std::string& name);

}  // namespace dls::util
