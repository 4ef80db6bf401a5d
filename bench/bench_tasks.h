// The benchmarks of dls_bench: seq2seq training and decoding, ViT training and inference,
// each on synthetic data of the real shapes, built from the same presets as the programs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "bench_measure.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/util/precision.h"

namespace dls::bench {

struct BenchOptions {
  std::string task;    // seq2seq-train|seq2seq-greedy|seq2seq-beam|translate-latency|translate-file|vit-train|vit-infer
  std::string preset;  // seq2seq: dlstudio|cpu; vit: dlstudio|fashion (empty: dlstudio)
  std::string layout;  // override the preset's layout (dlstudio|positionwise|vaswani)
  std::string variant;              // FG|PreLN (empty: the preset's; seq2seq presets take FG)
  std::int64_t batch = 0;           // 0: the preset's
  std::int64_t embedding_size = 0;  // seq2seq: M (0: the preset's)
  std::int64_t src_vocab = 11258;   // DLStudio's en_es_xformer_8_90000 vocabularies
  std::int64_t tgt_vocab = 21823;
  std::int64_t beam = 4;
  int warmup = 1, repeats = 3, iters = 2;
  int workers = 0;                         // concurrent chunks per batch (split_batch.h); 0: as the programs
  bool plain_adam = false;                 // LibTorch's Adam/AdamW step instead of the fused one
  bool plain_bmm = false;                  // torch::matmul for attention's small products (small_batched_matmul.h)
  std::string attention = "auto";          // auto|plain|fused: where the fused operator runs (fused_attention.h)
  bool plain_decoder_step = false;         // decoding: attention by the general operators, not the step kernels
  bool int8_linear = false;                // linear layers of inference on int8 weights (int8_linear.h)
  bool plain_linear = false;               // one-row linear layers through GEMM, not GEMV (row_linear.h)
  bool full_ffn = false;                   // dlstudio layout: compute every W2 output, read or not
  bool all_output_rows = false;            // seq2seq training: padding rows through the output layer too
  bool graph_safe_adam = false;            // seq2seq training: GraphSafeAdam over flat gradients
  bool cuda_graphs = false;                // seq2seq training: the step replayed as CUDA graphs (captured_step.h)
  std::string keep_freed_memory = "auto";  // on|off|auto (as the programs: util::keep_freed_memory)
  std::uint64_t seed = 0;
  std::string device = "cpu";      // cpu|cuda|auto (util::select_device)
  std::string precision = "fp32";  // fp32|bf16|fp16: forward passes under autocast (util/precision.h)
  int profile_rows = 0;            // > 0: after timing, the operators with the most self time
  int gpu_profile_rows = 0;        // > 0 (CUDA): after timing, the kernels with the most GPU time
  // translate-latency
  std::string checkpoint;                       // a seq2seq run or checkpoint (empty: a random model)
  std::string sentence = "I want to go home.";  // the sentence translated
  std::string method = "greedy";                // greedy|beam (--beam beams)
  bool scores = false;                          // also score the translation (translate_server, --json)
  // translate-file (with checkpoint): every line of this file through Translator::translate in
  // batches of --batch sentences, one chunk per intra-op thread (as checkpoint_eval's report)
  std::string sentences_file;
};

struct BenchResult {
  std::string unit;                                         // pairs/s, sentences/s, images/s
  std::vector<std::pair<std::string, std::string>> config;  // what was measured
  Timing timing;                                            // on a GPU: waiting for it once per repeat
  std::optional<Timing> waiting_each_step;                  // on a GPU: waiting for it after every step
  double flops_per_item = 0;                                // matrix-product FLOPs per pair, sentence or image
  OperatorCounts ops_per_step;                              // what one step dispatches (count_operators)
};

// Where a benchmark's model runs: `model` moved to the device asked for, and autocast for the
// precision asked for (refused in one line where the device lacks it), as the programs place
// theirs.
struct BenchPlacement {
  c10::Device device;
  util::AutocastState autocast;
};
BenchPlacement place_model(torch::nn::Module& model, const BenchOptions& options);

// How the benchmark's attention runs on `device`, for its JSON's "attention_products":
// scaled_dot_product_attention (fused_attention.h), small_batched_matmul or matmul.
std::string attention_products(c10::Device device);

// Measures `step` into `result` as every benchmark does: timed (options' warm-up, repeats,
// iterations; `batch` items a step; on a GPU also waiting for it after every step), its matrix-product FLOPs and
// operators counted, and with options.profile_rows its operator profile on stderr (with
// options.gpu_profile_rows, on a GPU, its kernel profile: gpu_kernel_profile.h). The FLOPs
// are counted on `flops_step` where given (an eager run of a step that replays a CUDA graph).
void measure_step(std::function<void(int)> step, const BenchOptions& options, std::int64_t batch, bool cuda,
                  BenchResult& result, const std::function<void()>& flops_step = {});

// The seq2seq preset `name` as a benchmark builds its model from it: with the variant, layout,
// M and vocabulary sizes options ask for. Throws std::invalid_argument for an unknown preset,
// variant or layout.
settings::Seq2SeqTrainSettings seq2seq_bench_preset(const std::string& name, const BenchOptions& options);

// Throws std::invalid_argument for an unknown task, preset or layout.
BenchResult run_seq2seq_bench(const BenchOptions& options);
BenchResult run_vit_bench(const BenchOptions& options);
BenchResult run_translate_latency_bench(const BenchOptions& options);
BenchResult run_translate_file_bench(const BenchOptions& options);

}  // namespace dls::bench
