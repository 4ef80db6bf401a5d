// The choice of OpenBLAS's kernels: when a restart with OPENBLAS_CORETYPE is due, from the
// core OpenBLAS chose, the CPU's features and the environment (the end-to-end restart of a
// real program: tests/apps/blas_kernels_app_test.cpp).
#include "dls/util/blas_kernels.h"

#include <gtest/gtest.h>

namespace dls::util {
namespace {

CpuFeatures avx2_cpu() {
  CpuFeatures cpu;
  cpu.avx2 = cpu.fma = true;
  return cpu;
}

CpuFeatures avx512_cpu() {
  CpuFeatures cpu = avx2_cpu();
  cpu.avx512f = cpu.avx512bw = cpu.avx512vl = cpu.avx512dq = true;
  return cpu;
}

// Debian's OpenBLAS on a CPU it did not recognise, nothing in the environment.
BlasKernelFacts fallen_back(const CpuFeatures& cpu, const std::string& core = "Prescott") {
  return {core, /*dynamic_arch=*/true, cpu, /*coretype=*/std::nullopt, /*restarted=*/std::nullopt};
}

TEST(BlasKernels, FallbackCoreOnAnAvx512CpuRestartsWithSkylakeX) {
  EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(avx512_cpu())), "SKYLAKEX");
  // Every fallback core older than AVX2 counts, in any case.
  for (const char* core : {"Nehalem", "Sandybridge", "Core2", "Barcelona", "PRESCOTT", "atom", "Opteron_SSE3"}) {
    EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(avx512_cpu(), core)), "SKYLAKEX") << core;
  }
}

TEST(BlasKernels, FallbackCoreOnAnAvx2CpuRestartsWithHaswell) {
  EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(avx2_cpu())), "HASWELL");
  // SKYLAKEX's kernels need all four AVX-512 extensions; one missing gives HASWELL.
  for (bool CpuFeatures::*missing :
       {&CpuFeatures::avx512f, &CpuFeatures::avx512bw, &CpuFeatures::avx512vl, &CpuFeatures::avx512dq}) {
    CpuFeatures cpu = avx512_cpu();
    cpu.*missing = false;
    EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(cpu)), "HASWELL") << feature_names(cpu);
  }
}

TEST(BlasKernels, ACpuWithoutAvx2AndFmaKeepsTheOldKernels) {
  EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(CpuFeatures{})), std::nullopt);
  CpuFeatures no_fma = avx512_cpu();
  no_fma.fma = false;
  EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(no_fma)), std::nullopt);
  CpuFeatures no_avx2 = avx2_cpu();
  no_avx2.avx2 = false;
  EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(no_avx2)), std::nullopt);
}

TEST(BlasKernels, AGoodCoreIsKept) {
  // Also Haswell's kernels on an AVX-512 CPU (OpenBLAS's choice, e.g. for AMD's Zen 4 in
  // 0.3.21), Excavator (chosen for AMD's Excavator only) and names this list does not know.
  for (const char* core : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", "Excavator", "Unknown",
                           "NeoverseN1", "Graniterapids"}) {
    EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(avx512_cpu(), core)), std::nullopt) << core;
    EXPECT_EQ(blas_core_type_to_restart_with(fallen_back(avx2_cpu(), core)), std::nullopt) << core;
  }
}

TEST(BlasKernels, AUserSetCoreTypeIsNeverOverridden) {
  for (const char* value : {"Prescott", "SKYLAKEX", "HASWELL", "", "nonsense"}) {
    auto facts = fallen_back(avx512_cpu());
    facts.coretype = value;
    EXPECT_EQ(blas_core_type_to_restart_with(facts), std::nullopt) << value;
  }
}

TEST(BlasKernels, NoSecondRestart) {
  // The restarted process has both variables; one is enough to stop (a user who removes
  // OPENBLAS_CORETYPE in a child, an OpenBLAS that ignored the value).
  auto facts = fallen_back(avx512_cpu());
  facts.restarted = "1234:Prescott";
  EXPECT_EQ(blas_core_type_to_restart_with(facts), std::nullopt);
  facts.coretype = "SKYLAKEX";
  EXPECT_EQ(blas_core_type_to_restart_with(facts), std::nullopt);
}

TEST(BlasKernels, NotOpenBlasOrBuiltForOneCpuIsLeftAlone) {
  auto other_blas = fallen_back(avx512_cpu(), "");  // reference BLAS, MKL, ...: no openblas_get_corename
  EXPECT_EQ(blas_core_type_to_restart_with(other_blas), std::nullopt);
  auto one_target = fallen_back(avx512_cpu());  // built without DYNAMIC_ARCH: OPENBLAS_CORETYPE is ignored
  one_target.dynamic_arch = false;
  EXPECT_EQ(blas_core_type_to_restart_with(one_target), std::nullopt);
}

TEST(BlasKernels, FeatureNamesListWhatIsThere) {
  EXPECT_EQ(feature_names(CpuFeatures{}), "none");
  EXPECT_EQ(feature_names(avx2_cpu()), "avx2 fma");
  EXPECT_EQ(feature_names(avx512_cpu()), "avx2 fma avx512f avx512bw avx512vl avx512dq");
}

TEST(BlasKernels, ThisProcessIsDescribed) {
  // The test program ran choose_blas_kernels first (tests/main.cpp): whatever it decided,
  // a second look decides nothing more.
  const BlasKernelFacts facts = blas_kernel_facts();
  EXPECT_EQ(facts.openblas_core.empty(), openblas_core_in_use().empty());
  if (!facts.restarted && !facts.coretype && is_pre_avx2_openblas_core(facts.openblas_core) && facts.cpu.avx2 &&
      facts.cpu.fma && facts.dynamic_arch) {
    ADD_FAILURE() << "tests/main.cpp did not restart on " << facts.openblas_core << " (" << feature_names(facts.cpu)
                  << ")";
  }
#if defined(__x86_64__)
  // Every x86-64 CPU with AVX2 since Haswell and Excavator has FMA as well.
  EXPECT_TRUE(!facts.cpu.avx2 || facts.cpu.fma);
#endif
}

}  // namespace
}  // namespace dls::util
