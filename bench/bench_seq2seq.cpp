// Seq2seq benchmarks: a training step exactly as seq2seq_train makes it (forward, loss,
// backward, optional clipping, optimizer step), and greedy or beam decoding of a batch.
#include <optional>
#include <random>
#include <stdexcept>

#include <torch/torch.h>

#include "bench_tasks.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/decoding.h"
#include "dls/models/seq2seq_loss.h"
#include "dls/util/thread_policy.h"
#include "dls/train/captured_step.h"
#include "dls/train/optim/graph_safe_adam.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/train/tasks/seq2seq_presets.h"
#include "dls/train/parallel/split_batch.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"

namespace dls::bench {

namespace {

using data::Vocabulary;

// [B, L] sentences: SOS, 1..L-2 random words (ids >= 4), EOS, then <pad>; seeded.
torch::Tensor random_sentences(std::mt19937_64& rng, std::int64_t batch, std::int64_t max_len, std::int64_t vocab) {
  auto out = torch::full({batch, max_len}, Vocabulary::kPad, torch::kLong);
  auto a = out.accessor<std::int64_t, 2>();
  std::uniform_int_distribution<std::int64_t> length(1, max_len - 2), word(Vocabulary::kSpecialCount, vocab - 1);
  for (std::int64_t b = 0; b < batch; ++b) {
    const auto n = length(rng);
    a[b][0] = Vocabulary::kSos;
    for (std::int64_t i = 1; i <= n; ++i) a[b][i] = word(rng);
    a[b][n + 1] = Vocabulary::kEos;
  }
  return out;
}

}  // namespace

settings::Seq2SeqTrainSettings seq2seq_bench_preset(const std::string& name, const BenchOptions& o) {
  auto preset = train::seq2seq_preset(name, parse_variant(o.variant.empty() ? "FG" : o.variant));
  auto& config = preset.model;
  if (!o.layout.empty()) config.transformer().layout(parse_layout(o.layout));
  if (o.embedding_size > 0) config.transformer().embedding_size(o.embedding_size);
  config.src_vocab_size(o.src_vocab).tgt_vocab_size(o.tgt_vocab);
  return preset;
}

BenchResult run_seq2seq_bench(const BenchOptions& o) {
  const std::string preset_name = o.preset.empty() ? "dlstudio" : o.preset;
  const auto preset = seq2seq_bench_preset(preset_name, o);
  const auto& config = preset.model;
  const std::int64_t batch = o.batch > 0 ? o.batch : preset.batch_size;
  const std::int64_t L = config.transformer().max_seq_length();
  torch::manual_seed(o.seed);
  Seq2SeqTransformer model(config);
  const auto placement = place_model(*model, o);  // (not a structured binding: the lambdas below capture them)
  const auto device = placement.device;
  const auto autocast = placement.autocast;

  std::mt19937_64 rng(o.seed + 1);
  constexpr int kBatches = 4;  // training cycles through a few distinct batches
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  LossOptions loss_options;
  loss_options.dlstudio = preset.dlstudio_loss;
  loss_options.label_smoothing = preset.label_smoothing;
  std::vector<LossDenominators> denominators;  // counted on the host, as the trainer's
  for (int i = 0; i < kBatches; ++i) {
    auto src = random_sentences(rng, batch, L, o.src_vocab);
    auto tgt = random_sentences(rng, batch, L, o.tgt_vocab);
    denominators.push_back(loss_denominators(tgt.narrow(1, 1, L - 1), loss_options));
    batches.emplace_back(src.to(device), tgt.to(device));
  }

  BenchResult result;
  result.config = {{"preset", preset_name},
                   {"summary", config.summary()},
                   {"batch", std::to_string(batch)},
                   {"precision", o.precision}};
  // Chunks per batch as seq2seq_train chooses them.
  const int threads = torch::get_num_threads();
  const int workers = util::batch_chunk_workers(  // chunks on CPU threads only, as the programs
      device, o.workers > 0 ? o.workers : util::default_batch_chunks(config.transformer().flattened(), threads));
  result.config.emplace_back("workers", std::to_string(workers));
  const bool keep_memory = o.keep_freed_memory == "on" || (o.keep_freed_memory == "auto" && o.task == "seq2seq-train" &&
                                                           util::keeps_freed_memory(config.transformer().flattened()));
  if (keep_memory) util::keep_freed_memory();
  result.config.emplace_back("keep_freed_memory", keep_memory ? "on" : "off");
  model->master_decoder->skip_unread_ffn_outputs = !o.full_ffn;
  if (o.full_ffn) result.config.emplace_back("ffn", "full");
  std::function<void(int)> step;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::shared_ptr<train::GradientBuffer> gradients;  // --graph-safe-adam, --cuda-graphs
  std::unique_ptr<train::CapturedStep> captured;     // --cuda-graphs
  std::unique_ptr<train::CapturedStep> eager_twin;   // --cuda-graphs on a GPU: the FLOP count's step
  std::function<void()> flops_step;                  // what the FLOPs are counted on, if not `step`
  std::optional<train::ScopedIntraOpThreads> single_thread;
  if (o.task == "seq2seq-train") {
    result.unit = "pairs/s";
    model->train();
    auto optimizer_options = preset.optimizer;
    optimizer_options.fused = !o.plain_adam;
    result.config.emplace_back("adam", o.plain_adam ? "plain" : "fused");
    if (o.all_output_rows) result.config.emplace_back("output_rows", "all");
    const bool graph_safe = o.graph_safe_adam || o.cuda_graphs;
    if (graph_safe) {
      gradients = std::make_shared<train::GradientBuffer>(model->parameters());
      optimizer = train::make_graph_safe_optimizer(gradients->parameters(), gradients->flat(), optimizer_options,
                                                   preset.schedule.base_lr);
      for (auto& [key, value] : result.config) {
        if (key == "adam") value = "graph-safe";
      }
    } else {
      optimizer = train::make_optimizer(model->parameters(), optimizer_options, preset.schedule.base_lr);
    }
    if (workers > 1) single_thread.emplace(1);  // as train_seq2seq does
    if (o.cuda_graphs) {
      // As seq2seq_train's captured step: the masked sum over every output row, divided on the device.
      auto sum_options = loss_options;
      sum_options.all_output_rows = true;
      const auto loss_sum = [&model, sum_options](const torch::Tensor& s, const torch::Tensor& t) {
        return sequence_loss_sum_from_states(*model->master_decoder, model->final_states(s, t),
                                             t.narrow(1, 1, t.size(1) - 1), sum_options);
      };
      auto& graph_safe_optimizer = dynamic_cast<train::GraphSafeOptimizer&>(*optimizer);
      captured = std::make_unique<train::CapturedStep>(device, gradients->parameters(), graph_safe_optimizer, loss_sum,
                                                       autocast,
                                                       /*record=*/device.is_cuda());
      if (device.is_cuda()) {
        // A replay dispatches no product to count: the FLOPs are counted on one step of the
        // same program run eagerly.
        eager_twin = std::make_unique<train::CapturedStep>(device, gradients->parameters(), graph_safe_optimizer,
                                                           loss_sum, autocast,
                                                           /*record=*/false);
        flops_step = [&] {
          const auto& [src, tgt] = batches[0];
          eager_twin->run(src, tgt, loss_options.dlstudio ? denominators[0].rows : denominators[0].real_tokens);
        };
      }
      result.config.emplace_back("step", device.is_cuda() ? "cuda-graphs" : "captured-program-eager");
    }
    step = [&](int i) {
      const auto k = static_cast<std::size_t>(i % kBatches);
      const auto& [src, tgt] = batches[k];
      const auto& batch_denominators = denominators[k];
      if (captured) {
        captured->run(src, tgt, loss_options.dlstudio ? batch_denominators.rows : batch_denominators.real_tokens);
        return;
      }
      train::split_forward_backward(
          model->parameters(), src, tgt, workers,
          [&](const torch::Tensor& s, const torch::Tensor& t, torch::Tensor*) {
            const util::AutocastScope scope(autocast);  // forward and loss, as the training loop
            if (o.all_output_rows) {
              return sequence_loss_share(model(s, t), t.narrow(1, 1, L - 1), loss_options, batch_denominators);
            }
            return model_loss_share(model, s, t, loss_options, batch_denominators);
          },
          graph_safe ? train::GradientOutput::kIntoExisting : train::GradientOutput::kReplace, /*read_loss=*/false);
      optimizer->step();  // which clips the gradients (optimizer.h)
    };
  } else if (o.task == "seq2seq-greedy" || o.task == "seq2seq-beam") {
    result.unit = "sentences/s";
    eval::DecodeOptions decode;
    decode.method = o.task == "seq2seq-greedy" ? eval::DecodeMethod::kGreedy : eval::DecodeMethod::kBeam;
    decode.beam_size = o.beam;
    decode.workers = workers;
    if (o.task == "seq2seq-beam") result.config.emplace_back("beam", std::to_string(o.beam));
    model->eval();
    step = [&, decode](int) {
      const util::AutocastScope scope(autocast);
      eval::decode_batch(model, batches[0].first, Vocabulary::kSos, Vocabulary::kEos, decode);
    };
  } else {
    throw std::invalid_argument("unknown seq2seq task '" + o.task + "'");
  }
  if (o.task != "seq2seq-train") result.config.emplace_back("linear_weights", o.int8_linear ? "int8" : "fp32");
  result.config.emplace_back("attention_products", attention_products(device));
  measure_step(std::move(step), o, batch, device.is_cuda(), result, flops_step);
  return result;
}

}  // namespace dls::bench
