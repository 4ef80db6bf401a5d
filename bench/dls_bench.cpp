// dls_bench: throughput of seq2seq training and decoding and of ViT training and inference,
// median and spread over repeats after warm-up, the matrix-product FLOP rate of each next to
// the machine's measured GEMM rate, and peak memory. One JSON object per line on stdout
// (bench/side_by_side.sh pairs them with the Python references); a summary on stderr.
//
//   dls_bench --task seq2seq-train --preset dlstudio       DLStudio's example config
//   dls_bench --task vit-train --preset fashion --threads 2
//   dls_bench --task gemm                                  the matrix-product rate alone
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "bench_measure.h"
#include "bench_tasks.h"
#include "dls/layers/attention.h"
#include "dls/layers/int8_linear.h"
#include "dls/layers/row_linear.h"
#include "dls/layers/fused_attention.h"
#include "dls/layers/small_batched_matmul.h"
#include "dls/util/device.h"
#include "dls/util/json.h"
#include "dls/util/precision.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "dls/cli/overrides.h"
#include "dls/cli/command_line.h"
#include "dls/cli/error_line.h"

namespace {

void print_json(const std::string& task, const dls::bench::BenchResult& r, double gemm_gflops, int threads,
                const std::string& device, bool tf32) {
  dls::util::JsonWriter json;
  const double gflops = r.timing.median * r.flops_per_item / 1e9;
  json.begin_object().field("impl", "cpp").field("task", task).key("config").begin_object();
  for (const auto& [key, value] : r.config) json.key(key).value(value);
  json.end_object()
      .field("unit", r.unit)
      .field("median", r.timing.median)
      .field("min", r.timing.min)
      .field("max", r.timing.max)
      .key("samples")
      .begin_array();
  for (const double s : r.timing.rates) json.value(s);
  json.end_array();
  if (r.waiting_each_step) {
    json.key("waiting_each_step")
        .begin_object()
        .field("median", r.waiting_each_step->median)
        .field("min", r.waiting_each_step->min)
        .field("max", r.waiting_each_step->max)
        .end_object();
  }
  json.field("peak_rss_mb", dls::bench::peak_rss_mb())
      .field("rss_growth_mb", r.timing.rss_growth_mb)
      .field("matmul_flops_per_item", r.flops_per_item)
      .field("matmul_gflops_per_s", gflops)
      .field("gemm_gflops_per_s", gemm_gflops)
      .field("fraction_of_gemm", gemm_gflops > 0 ? gflops / gemm_gflops : 0.0)
      .field("aten_ops_per_step", r.ops_per_step.aten_ops)
      .field("top_level_ops_per_step", r.ops_per_step.top_level_ops)
      .field("autograd_nodes_per_step", r.ops_per_step.autograd_nodes)
      .field("threads", threads)
      .field("blas_kernels", dls::util::openblas_core_in_use())
      .field("device", device)
      .field("tf32", tf32)
      .field("torch_version", TORCH_VERSION)
      .end_object();
  std::cout << json.str() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  using dls::cli::in_range;
  CLI::App app{"Throughput of dlstudio-cpp's models on synthetic data of the real shapes."};
  dls::bench::BenchOptions options;
  int threads = 0, gemm_size = 1024;
  std::string quantize = "none";
  app.add_option(
         "--task", options.task,
         "seq2seq-train, seq2seq-greedy, seq2seq-beam, translate-latency, translate-file, vit-train, vit-infer or "
         "gemm")
      ->required()
      ->check(CLI::IsMember({"seq2seq-train", "seq2seq-greedy", "seq2seq-beam", "translate-latency", "translate-file",
                             "vit-train", "vit-infer", "gemm"}));
  app.add_option("--preset", options.preset, "seq2seq: dlstudio or cpu; vit: dlstudio or fashion (default dlstudio)")
      ->check(CLI::IsMember({"dlstudio", "cpu", "fashion"}));
  app.add_option("--layout", options.layout, "override the preset's layout: dlstudio, positionwise or vaswani")
      ->check(CLI::IsMember({"dlstudio", "positionwise", "vaswani"}));
  app.add_option("--variant", options.variant, "override the preset's variant: FG or PreLN")
      ->check(CLI::IsMember({"FG", "PreLN"}));
  app.add_option("--batch", options.batch, "batch size (default: the preset's)")->check(in_range(1, 1000000));
  app.add_option("--embedding-size", options.embedding_size, "seq2seq: override the preset's M (heads must divide it)")
      ->check(in_range(1, 65536));
  app.add_option("--src-vocab", options.src_vocab, "seq2seq: English vocabulary size")
      ->capture_default_str()
      ->check(in_range(4, 10000000));
  app.add_option("--tgt-vocab", options.tgt_vocab, "seq2seq: Spanish vocabulary size")
      ->capture_default_str()
      ->check(in_range(4, 10000000));
  app.add_option("--beam", options.beam, "seq2seq-beam, translate-latency --method beam: beams")
      ->capture_default_str()
      ->check(in_range(1, 64));
  app.add_option("--checkpoint", options.checkpoint,
                 "translate-latency: a seq2seq run directory or checkpoint, translated through eval::Translator as "
                 "checkpoint_eval --translate does (default: a random model of --preset, cpu)");
  app.add_option("--sentence", options.sentence, "translate-latency: the sentence (with --checkpoint)")
      ->capture_default_str();
  app.add_option("--sentences", options.sentences_file,
                 "translate-file: a file of sentences, one per line, translated in batches of --batch (default 256)");
  app.add_option("--method", options.method, "translate-latency, translate-file: greedy or beam")
      ->capture_default_str()
      ->check(CLI::IsMember({"greedy", "beam"}));
  app.add_flag("--scores", options.scores,
               "translate-latency: also score the translation (one teacher-forced pass, as translate_server)");
  app.add_option("--warmup", options.warmup, "untimed steps first")->capture_default_str()->check(in_range(0, 1000000));
  app.add_option("--repeats", options.repeats, "timed repeats (median and spread over them)")
      ->capture_default_str()
      ->check(in_range(1, 1000000));
  app.add_option("--iters", options.iters, "steps per repeat")->capture_default_str()->check(in_range(1, 1000000));
  app.add_option("--seed", options.seed, "model and data seed")
      ->capture_default_str()
      ->check(in_range(0, 18446744073709551615.0));
  app.add_option("--gemm-size", gemm_size, "n of the n x n x n product measuring the GEMM rate")
      ->capture_default_str()
      ->check(in_range(1, 16384));
  app.add_option("--threads", threads, "intra-op threads (default: all cores)")->check(in_range(1, 256));
  int workers = 0;
  app.add_option("--workers", workers,
                 "concurrent chunks of each batch, one thread each (1: the plain loop; default: one per thread, but 1 "
                 "for seq2seq training in the dlstudio layout)")
      ->check(in_range(1, 256));
  app.add_option("--keep-freed-memory", options.keep_freed_memory,
                 "auto (as seq2seq_train: on for seq2seq training in the dlstudio layout), on or off (runtime.h "
                 "keep_freed_memory)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_flag("--plain-adam", options.plain_adam,
               "training: LibTorch's Adam/AdamW step instead of the fused one (fused_adam.h)");
  app.add_flag("--plain-decoder-step", options.plain_decoder_step,
               "decoding: each attention layer of a one-position step by the general operators, not the step kernels "
               "(attention.h)");
  app.add_flag("--plain-linear", options.plain_linear,
               "linear layers of one row through GEMM like any other, not GEMV (row_linear.h)");
  app.add_option("--quantize", quantize,
                 "translate-latency, seq2seq-greedy, seq2seq-beam: none or int8 (the linear layers on int8 weights, "
                 "as checkpoint_eval --quantize int8)")
      ->capture_default_str()
      ->check(CLI::IsMember(dls::kQuantizeNames));
  app.add_flag("--plain-bmm", options.plain_bmm,
               "attention's small batched products by torch::matmul instead of small_batched_matmul.h's kernels");
  app.add_option("--attention", options.attention,
                 "auto (one fused operator on a GPU where LibTorch has it, >= 2.1), plain (softmax, dropout and two "
                 "products everywhere) or fused (the fused operator on the CPU too): fused_attention.h")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "plain", "fused"}));
  app.add_flag("--full-ffn", options.full_ffn,
               "dlstudio layout: compute every output of W2, including those no later step reads");
  app.add_option("--device", options.device, "cpu, cuda or auto (the GEMM rate is measured on the same device)")
      ->capture_default_str()
      ->check(CLI::IsMember(dls::util::kDeviceNames));
  app.add_option("--precision", options.precision,
                 "fp32, bf16 or fp16 (CUDA): forward passes under autocast, as the programs' --precision")
      ->capture_default_str()
      ->check(CLI::IsMember(dls::util::kPrecisionNames.names()));
  app.add_flag(
      "--all-output-rows", options.all_output_rows,
      "seq2seq training: send every target position, padding included, through the output layer and log-softmax");
  app.add_flag("--graph-safe-adam", options.graph_safe_adam,
               "seq2seq training: the optimizer as a few kernels over flat gradients (graph_safe_adam.h), eager");
  app.add_flag("--cuda-graphs", options.cuda_graphs,
               "seq2seq training: the whole step recorded as a CUDA graph and replayed (captured_step.h; implies "
               "--graph-safe-adam and --all-output-rows); on the CPU the same program runs eagerly");
  bool tf32 = false;
  app.add_flag("--tf32", tf32,
               "CUDA: float32 matrix products in TF32 (cuBLAS), the GEMM rate's too; off by default, as in LibTorch");
  app.add_option(
         "--profile", options.profile_rows,
         "after timing, print the N operators with the most self time over --iters more steps (bench_profile.h)")
      ->check(in_range(0, 100000));
  app.add_option("--gpu-profile", options.gpu_profile_rows,
                 "CUDA: after timing, print the N kernels with the most GPU time over --iters more steps, and the "
                 "GPU's busy time against the wall time (a LibTorch with Kineto: gpu_kernel_profile.h)")
      ->check(in_range(0, 100000));
  dls::cli::add_version_flag(app, "dls_bench");
  if (const auto stop = dls::cli::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("dls_bench"));  // stdout holds the JSON records
  try {
    dls::util::RuntimeOptions runtime;
    runtime.threads = threads;
    dls::util::configure_runtime(runtime);
    threads = torch::get_num_threads();
    options.workers = workers;
    dls::set_attention_step_kernels_enabled(!options.plain_decoder_step);
    dls::set_row_gemv_enabled(!options.plain_linear);
    options.int8_linear = quantize == "int8";
    if (options.int8_linear && options.task != "translate-latency" && options.task != "translate-file" &&
        options.task != "seq2seq-greedy" && options.task != "seq2seq-beam") {
      throw std::invalid_argument(
          "--quantize int8: for translate-latency, translate-file, seq2seq-greedy and seq2seq-beam");
    }
    dls::set_int8_linear_enabled(options.int8_linear);
    if (options.attention == "fused" && !dls::fused_attention_compiled()) {
      throw std::invalid_argument("--attention fused: this LibTorch (" TORCH_VERSION
                                  ") has no fused attention operator (2.1 and later)");
    }
    dls::set_fused_attention_use(options.attention == "plain"   ? dls::FusedAttentionUse::kNowhere
                                 : options.attention == "fused" ? dls::FusedAttentionUse::kEverywhere
                                                                : dls::FusedAttentionUse::kGpu);
    dls::set_small_batched_matmul_enabled(
        !options.plain_bmm);  // 0: each benchmark's default, as the programs choose it
    const auto device = dls::util::select_device(options.device);
    options.device = device.is_cuda() ? "cuda" : "cpu";
    if (options.gpu_profile_rows > 0 && !device.is_cuda()) {
      throw std::invalid_argument("--gpu-profile: for a run on the GPU (--device cuda)");
    }
    at::globalContext().setAllowTF32CuBLAS(tf32);
    const double gemm = dls::bench::measure_gemm_gflops(gemm_size, 7, device.is_cuda());
    const std::string kernels = dls::util::openblas_core_in_use();
    std::fprintf(stderr, "%s: matrix product %dx%dx%d at %.1f GFLOP/s on %s%s\n", options.task.c_str(), gemm_size,
                 gemm_size, gemm_size, gemm,
                 device.is_cuda() ? "the GPU" : (std::to_string(threads) + " threads").c_str(),
                 device.is_cuda() || kernels.empty() ? "" : (", OpenBLAS " + kernels + " kernels").c_str());
    if (options.task == "gemm") {
      dls::util::JsonWriter json;
      json.begin_object()
          .field("impl", "cpp")
          .field("task", "gemm")
          .field("n", gemm_size)
          .field("gemm_gflops_per_s", gemm)
          .field("threads", threads)
          .key("blas_kernels")  // OpenBLAS's core ("Haswell", blas_kernels.h); "" for another BLAS
          .value(dls::util::openblas_core_in_use())
          .field("device", options.device)
          .end_object();
      std::cout << json.str() << std::endl;
      return 0;
    }
    const auto result = options.task.rfind("vit", 0) == 0     ? dls::bench::run_vit_bench(options)
                        : options.task == "translate-latency" ? dls::bench::run_translate_latency_bench(options)
                        : options.task == "translate-file"    ? dls::bench::run_translate_file_bench(options)
                                                              : dls::bench::run_seq2seq_bench(options);
    std::fprintf(stderr,
                 "%s: median %.3f %s (min %.3f, max %.3f), %.2f matmul GFLOP/s = %.0f%% of GEMM, peak RSS %.0f MB\n",
                 options.task.c_str(), result.timing.median, result.unit.c_str(), result.timing.min, result.timing.max,
                 result.timing.median * result.flops_per_item / 1e9,
                 100 * result.timing.median * result.flops_per_item / 1e9 / gemm, dls::bench::peak_rss_mb());
    std::fprintf(stderr, "%s: one step dispatches %ld ATen operators (%ld top-level) and %ld autograd nodes\n",
                 options.task.c_str(), result.ops_per_step.aten_ops, result.ops_per_step.top_level_ops,
                 result.ops_per_step.autograd_nodes);
    if (result.waiting_each_step) {
      std::fprintf(stderr, "%s: waiting for the GPU after every step, median %.3f %s (min %.3f, max %.3f)\n",
                   options.task.c_str(), result.waiting_each_step->median, result.unit.c_str(),
                   result.waiting_each_step->min, result.waiting_each_step->max);
    }
    print_json(options.task, result, gemm, threads, options.device, tf32);
    return 0;
  } catch (const std::exception& error) {
    return dls::cli::print_error_line(error);
  }
}
