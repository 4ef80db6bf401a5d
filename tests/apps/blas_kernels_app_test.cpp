// choose_blas_kernels (util/blas_kernels.h) through the programs themselves. With
// DLS_BLAS_CORE_STANDIN=Prescott a program believes that OpenBLAS fell back to its Prescott
// kernels, as Debian's 0.3.21 does on a CPU model it does not know: it must start itself
// again once with OPENBLAS_CORETYPE set, say so in one line, and do its job on the kernels it
// asked for -- and leave a user's OPENBLAS_CORETYPE alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

#include "dls/util/blas_kernels.h"
#include "util/temp_files.h"
#include "support/program_run.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

// The test program itself may run restarted (tests/main.cpp) or under a user's choice: its
// children start from an environment without either.
const std::string kFreshEnvironment = "env -u OPENBLAS_CORETYPE -u DLS_BLAS_RESTARTED -u DLS_BLAS_CORE_STANDIN ";
const std::string kPrescottStandIn = kFreshEnvironment + "DLS_BLAS_CORE_STANDIN=Prescott ";

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The core type a program restarts with when OpenBLAS says Prescott here, or why none.
std::string core_type_for_a_prescott_fallback(std::string& why_not) {
  auto facts = util::blas_kernel_facts();
  if (facts.openblas_core.empty())
    why_not = "the BLAS is not OpenBLAS: no kernels to choose";
  else if (!facts.dynamic_arch)
    why_not = "OpenBLAS was built for one CPU (no DYNAMIC_ARCH): OPENBLAS_CORETYPE is ignored";
  facts.openblas_core = "Prescott";
  facts.coretype.reset();
  facts.restarted.reset();
  const auto core_type = util::blas_core_type_to_restart_with(facts);
  if (!core_type && why_not.empty()) {
    why_not = "this CPU lacks AVX2 or FMA (" + util::feature_names(facts.cpu) + "): Prescott's kernels fit it";
  }
  return why_not.empty() ? *core_type : "";
}

std::string restart_line(const std::string& core_type) {
  return "OpenBLAS chose its Prescott kernels for this CPU (" + util::feature_names(util::detect_cpu_features()) +
         "): restarted with OPENBLAS_CORETYPE=" + core_type;
}

TEST(BlasKernelsApp, ATrainerOnFallbackKernelsRestartsOnceAndTrains) {
  std::string why_not;
  const std::string core_type = core_type_for_a_prescott_fallback(why_not);
  if (core_type.empty()) GTEST_SKIP() << why_not;
  const auto run_dir = test::fresh_temp_dir("blas_kernels_app_train");
  const std::string corpus = dls::testing::sample_corpus();
  // The debug level adds configure_runtime's BLAS line, whose configuration names the core in use.
  const auto run = test::run_program(
      "apps/seq2seq_train",
      "--threads 1 --preset cpu --embedding-size 32 --heads 2 --encoders 1 --decoders 1 --ffn-multiplier 2"
      " --validation-pairs 100 --bleu-sentences 10 --samples 0 --epochs 1 --json --data " +
          corpus + " --run-dir " + run_dir.string(),
      "blas_kernels_app_train", "", kPrescottStandIn + "DLS_LOG_LEVEL=debug ");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(count(run.err, restart_line(core_type)), 1u) << run.err;
  EXPECT_EQ(count(run.err, "OpenBLAS chose"), 1u) << "one line, one restart\n" << run.err;
  // A DYNAMIC_ARCH OpenBLAS's configuration ends with the core in use: "... USE_OPENMP Haswell MAX_THREADS=64".
  const auto blas_line = run.err.find("BLAS: OpenBLAS (");
  ASSERT_NE(blas_line, std::string::npos) << run.err;
  EXPECT_NE(
      lower(run.err.substr(blas_line, run.err.find('\n', blas_line) - blas_line)).find(" " + lower(core_type) + " "),
      std::string::npos)
      << run.err;
  // It trained: one JSON object on stdout, a checkpoint in the run directory.
  EXPECT_EQ(test::count_lines(run.out), 1u) << run.out;
  EXPECT_EQ(run.out.rfind("{", 0), 0u) << run.out;
  EXPECT_TRUE(fs::exists(run_dir / "checkpoints" / "checkpoint_epoch_0001.pt")) << run.err;
}

#ifdef DLS_HAVE_BENCH
test::ProgramRun gemm(const std::string& env) {
  return test::run_program("bench/dls_bench", "--task gemm --threads 1 --gemm-size 96", "blas_kernels_app_gemm", "",
                           env + "DLS_LOG_LEVEL=info ");
}

TEST(BlasKernelsApp, TheBenchmarkMultipliesOnTheKernelsItRestartedWith) {
  std::string why_not;
  const std::string core_type = core_type_for_a_prescott_fallback(why_not);
  if (core_type.empty()) GTEST_SKIP() << why_not;
  const auto run = gemm(kPrescottStandIn);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(count(run.err, restart_line(core_type)), 1u) << run.err;
  EXPECT_EQ(run.out.rfind("{\"impl\":\"cpp\",\"task\":\"gemm\"", 0), 0u) << "the log line stays off stdout\n"
                                                                         << run.out;
  EXPECT_NE(lower(run.out).find("\"blas_kernels\":\"" + lower(core_type) + "\""), std::string::npos) << run.out;
}

TEST(BlasKernelsApp, AUsersCoreTypeIsKept) {
  std::string why_not;
  if (core_type_for_a_prescott_fallback(why_not).empty()) GTEST_SKIP() << why_not;
  const auto run = gemm(kPrescottStandIn + "OPENBLAS_CORETYPE=Prescott ");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(count(run.err, "OpenBLAS chose"), 0u) << run.err;
  EXPECT_NE(run.out.find("\"blas_kernels\":\"Prescott\""), std::string::npos) << run.out;
  // Nor does a program restart twice: the marker of an earlier restart is enough.
  const auto marked = gemm(kPrescottStandIn + "DLS_BLAS_RESTARTED=1:Prescott ");
  ASSERT_EQ(marked.status, 0) << marked.err;
  EXPECT_EQ(count(marked.err, "OpenBLAS chose"), 0u) << marked.err;
}
#endif

}  // namespace
}  // namespace dls
