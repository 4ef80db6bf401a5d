// ViT benchmarks: a training step as vit_train makes it (forward, label-smoothed
// cross-entropy, backward, optional clipping, optimizer step) and inference of a batch.
#include <optional>
#include <stdexcept>

#include <torch/torch.h>

#include "bench_tasks.h"
#include "dls/util/thread_policy.h"
#include "dls/models/vit.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/split_batch.h"
#include "dls/train/tasks/vit_presets.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"

namespace dls::bench {

BenchResult run_vit_bench(const BenchOptions& o) {
  const std::string preset_name = o.preset.empty() ? "dlstudio" : o.preset;
  auto settings = train::vit_preset(preset_name);
  settings.adapt_model_to_dataset();
  if (!o.layout.empty()) settings.model.transformer().layout(parse_layout(o.layout));
  if (!o.variant.empty()) settings.model.transformer().variant(parse_variant(o.variant));
  const auto batch = o.batch > 0 ? o.batch : static_cast<std::int64_t>(settings.batch_size);
  const auto& m = settings.model;
  torch::manual_seed(o.seed);
  visTransformer model(m);
  const auto placement = place_model(*model, o);  // (not a structured binding: the lambdas below capture them)
  const auto device = placement.device;
  const auto autocast = placement.autocast;

  constexpr int kBatches = 4;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (int i = 0; i < kBatches; ++i) {
    batches.emplace_back(torch::randn({batch, m.channels(), m.image_size(), m.image_size()}).to(device),
                         torch::randint(0, m.num_classes(), {batch}, torch::kLong).to(device));
  }

  BenchResult result;
  result.unit = "images/s";
  result.config = {
      {"preset", preset_name}, {"summary", m.summary()}, {"batch", std::to_string(batch)}, {"precision", o.precision}};
  // As vit_train: one chunk per thread on the CPU, the whole batch on a GPU.
  const int workers = util::batch_chunk_workers(device, o.workers > 0 ? o.workers : torch::get_num_threads());
  if (o.task == "vit-train") result.config.emplace_back("workers", std::to_string(workers));
  if (o.keep_freed_memory == "on") util::keep_freed_memory();
  std::function<void(int)> step;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::optional<train::ScopedIntraOpThreads> single_thread;
  if (o.task == "vit-train") {
    model->train();
    auto optimizer_options = settings.optimizer;
    optimizer_options.fused = !o.plain_adam;
    result.config.emplace_back("adam", o.plain_adam ? "plain" : "fused");
    optimizer = train::make_optimizer(model->parameters(), optimizer_options, settings.lr);
    const auto ce = torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(settings.label_smoothing);
    if (workers > 1) single_thread.emplace(1);  // as train_vit does
    step = [&, ce](int i) {
      const auto& [images, labels] = batches[static_cast<std::size_t>(i % kBatches)];
      train::split_forward_backward(
          model->parameters(), images, labels, workers,
          [&](const torch::Tensor& x, const torch::Tensor& y, torch::Tensor* logits) {
            const util::AutocastScope scope(autocast);  // forward and loss, as the training loop
            *logits = model(x).to(torch::kFloat);       // the loss in fp32
            return torch::nn::functional::cross_entropy(*logits, y, ce) *
                   (static_cast<double>(x.size(0)) / static_cast<double>(batch));
          });
      optimizer->step();  // which clips the gradients (optimizer.h)
    };
  } else if (o.task == "vit-infer") {
    model->eval();
    step = [&](int i) {
      torch::NoGradGuard no_grad;
      const util::AutocastScope scope(autocast);
      model(batches[static_cast<std::size_t>(i % kBatches)].first).argmax(-1);
    };
  } else {
    throw std::invalid_argument("unknown ViT task '" + o.task + "'");
  }
  result.config.emplace_back("attention_products", attention_products(device));
  measure_step(std::move(step), o, batch, device.is_cuda(), result);
  return result;
}

}  // namespace dls::bench
