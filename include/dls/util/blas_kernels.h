// OpenBLAS's kernels for the CPU it runs on. A DYNAMIC_ARCH OpenBLAS (Debian's) picks its
// kernels once, while it loads, from the CPU's model; a model it does not know (a virtual
// machine's, a CPU newer than the release) gets old kernels: Debian's 0.3.21 on a Xeon VM
// with AVX-512 said "Core: Prescott" (SSE3) and multiplied 1024^3 fp32 matrices at 39 GFLOP/s
// on 2 threads, against 188 with OPENBLAS_CORETYPE=SKYLAKEX. OpenBLAS reads
// OPENBLAS_CORETYPE only while it loads, so the cure is to start the program once more with
// it set: choose_blas_kernels(argv), the first statement of every main.
#pragma once

#include <optional>
#include <string>

namespace dls::util {

// Set by choose_blas_kernels in the environment of the program it restarts:
// "<pid>:<the core OpenBLAS chose>". Its presence stops any further restart.
inline constexpr const char* kBlasRestartedVariable = "DLS_BLAS_RESTARTED";
// For tests only: the core name to act on instead of the one OpenBLAS reports (e.g. Prescott,
// to see a restart on a machine where OpenBLAS chose well). Ignored when the BLAS is not OpenBLAS.
inline constexpr const char* kBlasCoreStandInVariable = "DLS_BLAS_CORE_STANDIN";

// The CPU's vector features that OpenBLAS's kernels need, as usable by this process (GCC's
// __builtin_cpu_supports checks that the OS saves the registers, too).
struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
};

// This CPU's features; all false off x86-64.
CpuFeatures detect_cpu_features();

// The features present, in the order of CpuFeatures, e.g. "avx2 fma"; "none" when none are.
std::string feature_names(const CpuFeatures& cpu);

// What the decision below looks at: what was detected and what the environment says.
struct BlasKernelFacts {
  std::string openblas_core;            // openblas_get_corename(), e.g. "Prescott", "Haswell"; empty: not OpenBLAS
  bool dynamic_arch = false;            // OpenBLAS was built with DYNAMIC_ARCH (only then does OPENBLAS_CORETYPE count)
  CpuFeatures cpu;                      // detect_cpu_features()
  std::optional<std::string> coretype;  // OPENBLAS_CORETYPE as set: the user's choice, never overridden
  std::optional<std::string> restarted;  // kBlasRestartedVariable as set: a restart already happened
};

// The core whose kernels OpenBLAS runs (openblas_get_corename(), e.g. "Haswell"); empty when
// the BLAS in this process is not OpenBLAS.
std::string openblas_core_in_use();

// This process's facts: the core in use (or kBlasCoreStandInVariable's, when set and the BLAS
// is OpenBLAS), DYNAMIC_ARCH from openblas_get_config(), the CPU, the environment.
BlasKernelFacts blas_kernel_facts();

// True for OpenBLAS's x86 cores whose kernels predate AVX2 and that it also falls back to on
// a CPU it does not recognise (Prescott, Core2, Nehalem, Sandybridge, Barcelona, ...;
// case-insensitive). Excavator is not among them: OpenBLAS picks it for AMD's Excavator only.
bool is_pre_avx2_openblas_core(const std::string& core);

// The OPENBLAS_CORETYPE to restart with, or std::nullopt to keep OpenBLAS's choice. Restarts
// only when a DYNAMIC_ARCH OpenBLAS chose a pre-AVX2 core on a CPU with AVX2 and FMA, the
// environment names no core type and no restart happened before: "SKYLAKEX" when AVX-512
// F, BW, VL and DQ are there, else "HASWELL" (both run on any such CPU, Intel or AMD).
std::optional<std::string> blas_core_type_to_restart_with(const BlasKernelFacts& facts);

// The first statement of main, before any thread starts and anything is printed: when
// blas_core_type_to_restart_with says so, executes /proc/self/exe again with the same argv
// and the environment plus OPENBLAS_CORETYPE and kBlasRestartedVariable (the pid, open
// files, signal mask and environment stay: torchrun and a test's parent see the same
// process). Returns when nothing is to be done, in the restarted process, or when the
// restart failed (a warning is then logged, and the program runs on with OpenBLAS's choice).
void choose_blas_kernels(char** argv);

// Logs what choose_blas_kernels did, once per process, through spdlog: in a restarted
// process one info line ("OpenBLAS chose its Prescott kernels for this CPU (avx2 fma ...):
// restarted with OPENBLAS_CORETYPE=SKYLAKEX"), a warning when the restart failed or OpenBLAS
// kept its old kernels all the same; nothing otherwise. configure_runtime calls it.
void log_blas_kernel_choice();

}  // namespace dls::util
