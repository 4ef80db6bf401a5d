// Process-wide set-up shared by every program: logging level, intra-op threads, a check
// of the BLAS library that LibTorch ended up using (the device: device.h).
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

namespace dls::util {

// What --log-level accepts: spdlog's level names.
inline const std::vector<std::string> kLogLevels{"trace", "debug", "info", "warn", "error", "critical", "off"};

// Sets the log level `requested` (--log-level), DLS_LOG_LEVEL winning when set, and the log
// lines' pattern ("[12:00:00] info ..."); "" keeps the level. configure_runtime() calls it; a job
// that runs no model (checkpoint_eval export) calls it alone.
void set_log_level(const std::string& requested);

struct RuntimeOptions {
  int threads = 0;  // intra-op threads; 0 = default_threads()
  // trace|debug|info|warn|error|off (env DLS_LOG_LEVEL wins); "" leaves the level the program
  // set: what the library's reports pass, so that checkpoint_eval's --log-level holds.
  std::string log_level;
  bool quiet_blas_check = false;  // do not log the BLAS line (tests)
  // Keep freed memory in the process (glibc: no mmap'd blocks, no trimming) so that the
  // next step reuses its pages instead of faulting in and zeroing fresh ones; see
  // keep_freed_memory(). The seq2seq programs call it for the dlstudio layout.
  bool keep_freed_memory = false;
};

struct RuntimeInfo {
  int threads = 1;         // intra-op threads in effect
  std::string blas;        // "OpenBLAS ...", "reference BLAS (...)", or "unknown"
  bool slow_blas = false;  // the netlib reference BLAS is loaded
};

// Applies the options; logs one warning line when the slow reference BLAS is in use, and
// what choose_blas_kernels (blas_kernels.h) did at the start of main.
RuntimeInfo configure_runtime(const RuntimeOptions& options);

// glibc serves blocks above 32 MB with mmap and unmaps them on free, and trims the heap's
// free top: a training step of the dlstudio seq2seq config (gradients of up to 1.1 GB per
// tensor) then faults in and zeroes gigabytes of fresh pages every step, in the kernel.
// This keeps every block in the heap and the heap untrimmed, so freed pages are reused:
// 7.9 -> 10.2 pairs/s on that config (bench/PERFORMANCE.md). Resident memory stays at its
// peak instead of shrinking between steps. Does nothing without glibc.
void keep_freed_memory();

// Identifies the BLAS library that serves sgemm_ in this process.
RuntimeInfo detect_blas();

// Intra-op threads when none are asked for: OMP_NUM_THREADS when a launcher set it (torchrun
// does, to share a machine's cores between its processes), else the number of cores.
int default_threads();

}  // namespace dls::util
