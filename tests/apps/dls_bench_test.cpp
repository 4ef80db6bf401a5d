// dls_bench: the FLOP counter counts exactly the matrix products run (backward included),
// and the program prints a complete JSON record for every kind of task.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "dls/layers/fused_attention.h"
#include "dls/layers/small_batched_matmul.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"

#ifdef DLS_HAVE_BENCH
#include "bench_measure.h"
#include "gpu_kernel_profile.h"
#include "support/fused_attention_use.h"
#include "support/program_run.h"
#endif

namespace dls {
namespace {

#ifdef DLS_HAVE_BENCH

TEST(BenchFlops, CountsEveryKindOfProduct) {
  const auto a = torch::randn({3, 5});
  const auto b = torch::randn({5, 7});
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::mm(a, b); }), 2.0 * 3 * 5 * 7);
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::addmm(torch::zeros({3, 7}), a, b); }), 2.0 * 3 * 5 * 7);
  auto c = torch::zeros({3, 7});
  EXPECT_EQ(bench::count_matmul_flops([&] { c.addmm_(a, b); }), 2.0 * 3 * 5 * 7);
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::addmm_out(c, c, a, b); }), 2.0 * 3 * 5 * 7);
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::mm_out(c, a, b); }), 2.0 * 3 * 5 * 7);
  const auto x = torch::randn({4, 3, 5});
  const auto y = torch::randn({4, 5, 2});
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::bmm(x, y); }), 2.0 * 4 * 3 * 5 * 2);
  // Attention's small products: every leading dimension is part of the batch; forward and
  // the two gradients' products.
  const auto q = torch::randn({2, 4, 3, 5}, torch::requires_grad());
  const auto v = torch::randn({2, 4, 5, 2}, torch::requires_grad());
  EXPECT_EQ(bench::count_matmul_flops([&] { small_batched_matmul(q, v); }), 2.0 * 8 * 3 * 5 * 2);
  EXPECT_EQ(bench::count_matmul_flops([&] { small_batched_matmul(q, v).sum().backward(); }), 3 * 2.0 * 8 * 3 * 5 * 2);
  EXPECT_EQ(bench::count_matmul_flops([&] { torch::relu(a); }), 0.0);
}

// LibTorch's fused attention kernel counts as the products the plain path runs: Q K^T and P V
// forward, four products backward (a layer's projections are counted alike on both paths).
// Cross-attention, Lq 5 against Lk 7: a count that took the wrong input for the query or the
// key would differ.
TEST(BenchFlops, FusedAttentionCountsAsThePlainProducts) {
  if (!fused_attention_compiled()) GTEST_SKIP() << "this LibTorch (" TORCH_VERSION ") has no fused attention";
  TransformerConfig config;
  config.layout(Layout::kVaswani).embedding_size(32).num_heads(4).max_seq_length(7);
  CrossAttention layer(config);
  const auto x = torch::randn({3, 5, 32}, torch::requires_grad());
  const auto encoder_out = torch::randn({3, 7, 32}, torch::requires_grad());
  const auto flops = [&](FusedAttentionUse use) {
    const test::FusedAttentionUseScope scope(use);
    return bench::count_matmul_flops([&] { layer->forward(x, encoder_out).sum().backward(); });
  };
  const double fused = flops(FusedAttentionUse::kEverywhere), plain = flops(FusedAttentionUse::kNowhere);
  // Attention alone: 6 products of 2 * (3 * 4) * 5 * 7 * 8 each.
  EXPECT_GT(plain, 6 * 2.0 * 12 * 5 * 7 * 8);
  EXPECT_EQ(fused, plain);
}

TEST(BenchFlops, LinearForwardAndBackwardIsThreeProducts) {
  torch::nn::Linear linear(16, 8);
  const auto input = torch::randn({10, 6, 16}, torch::requires_grad());
  // Forward: 2 * 60 * 16 * 8; backward: the same again for the input's gradient and for
  // the weight's.
  const double flops = bench::count_matmul_flops([&] { linear(input).sum().backward(); });
  EXPECT_EQ(flops, 3 * 2.0 * 60 * 16 * 8);
  // Nothing is counted once the counter is gone.
  EXPECT_EQ(bench::count_matmul_flops([] {}), 0.0);
}

test::ProgramRun run_bench(const std::string& args) {
  return test::run_program("bench/dls_bench", "--threads 1 --gemm-size 128 " + args, "dls_bench_app");
}

double field(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex number("\"" + key + "\":([-0-9.e+]+)");
  if (!std::regex_search(json, m, number)) return -1;
  return std::stod(m[1].str());
}

TEST(BenchApp, PrintsAJsonRecordForEveryTask) {
  const std::string small = " --batch 4 --src-vocab 40 --tgt-vocab 50 --warmup 0 --repeats 2 --iters 1";
  for (const std::string& args :
       {"--task seq2seq-train --preset dlstudio" + small, "--task seq2seq-train --preset cpu" + small,
        "--task seq2seq-greedy --preset cpu" + small, "--task seq2seq-beam --preset cpu --beam 2" + small,
        std::string("--task vit-infer --preset fashion --batch 4 --warmup 0 --repeats 2 --iters 1"),
        std::string("--task vit-train --preset fashion --batch 4 --warmup 0 --repeats 2 --iters 1")}) {
    const auto run = run_bench(args);
    ASSERT_EQ(run.status, 0) << args << "\n" << run.err;
    EXPECT_EQ(run.out.rfind("{\"impl\":\"cpp\"", 0), 0u) << run.out;
    EXPECT_GT(field(run.out, "median"), 0) << args << run.out;
    EXPECT_GT(field(run.out, "matmul_flops_per_item"), 0) << args << run.out;
    EXPECT_GT(field(run.out, "gemm_gflops_per_s"), 0) << run.out;
    EXPECT_GT(field(run.out, "peak_rss_mb"), 0) << run.out;
    EXPECT_NE(run.out.find("\"samples\":["), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\"device\":\"cpu\""), std::string::npos) << run.out;
  }
  // A name no task has is refused on the command line; one of another task's, by the task.
  const auto nonsense = run_bench("--task seq2seq-train --preset nonsense");
  EXPECT_NE(nonsense.status, 0);
  EXPECT_NE(nonsense.err.find("error: --preset: nonsense not in"), std::string::npos) << nonsense.err;
  const auto bad = run_bench("--task seq2seq-train --preset fashion");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("error: unknown preset 'fashion'"), std::string::npos) << bad.err;
}

// --device cuda where there is no GPU is one line, not a crash; --device auto falls back
// to the CPU.
TEST(BenchApp, ProfileAndPlainProducts) {
  const auto run =
      run_bench("--task vit-train --preset fashion --batch 4 --warmup 0 --repeats 1 --iters 1 --profile 3");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto table = run.err.find("operator profile: ");
  ASSERT_NE(table, std::string::npos) << run.err;
  // Header, column titles, then exactly three operator rows, the largest self time first.
  // Operator names may hold spaces ("autograd::engine::evaluate_function: AddBackward0").
  const std::regex row(R"(\n(\S.*?) +(\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+)%)");
  std::vector<double> self_ms;
  const std::string rest = run.err.substr(table);
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), row); it != std::sregex_iterator(); ++it) {
    self_ms.push_back(std::stod((*it)[3]));
  }
  ASSERT_EQ(self_ms.size(), 3u) << rest;
  EXPECT_GE(self_ms[0], self_ms[1]);
  EXPECT_GE(self_ms[1], self_ms[2]);
  EXPECT_NE(run.out.find("\"attention_products\":\"small_batched_matmul\""), std::string::npos) << run.out;
  const auto plain =
      run_bench("--task vit-infer --preset fashion --batch 4 --warmup 0 --repeats 1 --iters 1 --plain-bmm");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("\"attention_products\":\"matmul\""), std::string::npos) << plain.out;
}

TEST(BenchApp, DeviceChoice) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a GPU is visible: the CUDA path runs instead of failing";
  const auto cuda = run_bench("--task gemm --device cuda");
  EXPECT_EQ(cuda.status, 1);
  EXPECT_EQ(cuda.err.rfind("error: --device cuda: this LibTorch has no CUDA or no GPU is visible", 0), 0u) << cuda.err;
  const auto automatic =
      run_bench("--task vit-infer --preset fashion --batch 4 --warmup 0 --repeats 1 --iters 1 --device auto");
  ASSERT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_NE(automatic.out.find("\"device\":\"cpu\""), std::string::npos) << automatic.out;
}

// --attention fused where LibTorch has no fused operator: one line, not the plain path unsaid.
TEST(BenchApp, FusedAttentionRefusedWithoutIt) {
  if (fused_attention_compiled()) GTEST_SKIP() << "this LibTorch (" TORCH_VERSION ") has the fused operator";
  const auto run = run_bench(
      "--task vit-infer --preset fashion --batch 4 --warmup 0 --repeats 1 --iters 1 "
      "--attention fused");
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err.rfind("error: --attention fused: this LibTorch (" TORCH_VERSION ") has no fused attention", 0), 0u)
      << run.err;
}

// --gpu-profile: the GPU's busy time is the union of its kernels' intervals (overlaps once,
// gaps not at all), and a run on the CPU is refused in one line before anything runs.
TEST(BenchApp, GpuKernelProfile) {
  EXPECT_EQ(bench::busy_time({}), 0.0);
  EXPECT_EQ(bench::busy_time({{10, 20}, {30, 35}}), 15.0);            // a gap
  EXPECT_EQ(bench::busy_time({{30, 40}, {10, 20}, {15, 25}}), 25.0);  // unsorted, one overlap
  EXPECT_EQ(bench::busy_time({{10, 50}, {20, 30}, {45, 60}}), 50.0);  // one inside another
  const auto cpu = run_bench(
      "--task vit-infer --preset fashion --batch 4 --warmup 0 --repeats 1 --iters 1 "
      "--device cpu --gpu-profile 5");
  EXPECT_EQ(cpu.status, 1);
  EXPECT_EQ(cpu.err.rfind("error: --gpu-profile: for a run on the GPU (--device cuda)", 0), 0u) << cpu.err;
}

#else

TEST(BenchApp, SkippedWithoutTheBenchmark) { GTEST_SKIP() << "configured with DLS_BUILD_BENCH=OFF"; }

#endif

}  // namespace
}  // namespace dls
