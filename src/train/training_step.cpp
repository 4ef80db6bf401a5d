#include "train/training_step.h"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/train/captured_step.h"
#include "dls/train/optim/graph_safe_adam.h"
#include "dls/train/parallel/distributed.h"
#include "dls/train/optim/grad_scaler.h"
#include "dls/train/parallel/gradient_buckets.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/optim/saved_optimizer.h"
#include "dls/util/precision.h"
#include "train/device_graph.h"
#include "train/training_support.h"

namespace dls::train {

TrainingStep::TrainingStep(TrainingTask& task, const LoopOptions& options, DistributedContext& dist,
                           const checkpoint::CheckpointReader* resume)
    : task_(task), options_(options), dist_(dist), has_accuracy_(reports_accuracy(task)) {
  auto& model = task_.model();
  const bool main = dist_.is_main();
  if (dist_.world_size() > 1) {
    // Rank 0's weights everywhere, then gradients that are views of one flat buffer, whose
    // buckets are summed over the ranks while backward runs (gradient_buckets.h).
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> tensors = model.parameters();
    for (const auto& buffer : model.buffers()) tensors.push_back(buffer);
    dist_.broadcast(tensors);
    gradients_ = std::make_shared<GradientBuffer>(model.parameters());
    // Embedding tables are summed by the rows the batch touched.
    std::vector<torch::Tensor> tables;
    for (const auto& module : model.modules()) {
      if (const auto* embedding = module->as<torch::nn::EmbeddingImpl>()) tables.push_back(embedding->weight);
    }
    buckets_ = std::make_unique<GradientBuckets>(*gradients_, dist_, options_.bucket_bytes(), tables);
    if (main) {
      spdlog::info(
          "gradients: {:.1f} MB, {} embedding table{} summed by touched rows, the rest in {} all-reduce "
          "bucket{}{}",
          1e-6 * static_cast<double>(gradients_->flat().nbytes()), buckets_->tables_by_rows(),
          buckets_->tables_by_rows() == 1 ? "" : "s", buckets_->bucket_count(),
          buckets_->bucket_count() == 1 ? "" : "s",
          options_.bucket_bytes() > 0 ? " started while backward runs" : " after backward");
    }
  }
  // Process-wide in LibTorch: set for every run, so that one without --tf32 never inherits it.
  at::globalContext().setAllowTF32CuBLAS(options_.run.tf32);
  if (main && options_.run.tf32 && options_.device.is_cuda()) {
    spdlog::info("TF32: float32 matrix products with TF32 inputs on tensor cores (--tf32)");
  }
  auto capturable = task_.capturable_loss();
  plan_ =
      plan_step(parse_cuda_graphs(options_.run.cuda_graphs), options_.device, DeviceGraph::available(),
                dist_.world_size(), options_.run.precision, options_.run.parallel.accum_steps, capturable.has_value());
  if (plan_.graph_safe_optimizer) {
    if (!gradients_) gradients_ = std::make_shared<GradientBuffer>(model.parameters());
    optimizer_ = make_graph_safe_optimizer(gradients_->parameters(), gradients_->flat(), options_.optimizer,
                                           task_.schedule().base_lr);
  } else {
    optimizer_ = make_optimizer(model.parameters(), options_.optimizer, task_.schedule().base_lr);
  }
  if (plan_.captured) {
    captured_ = std::make_unique<CapturedStep>(options_.device, gradients_->parameters(),
                                               dynamic_cast<GraphSafeOptimizer&>(*optimizer_), capturable->sum,
                                               util::autocast_for(options_.run.precision, options_.device),
                                               /*record=*/true);
    denominator_ = capturable->denominator;
  }
  if (main) {
    spdlog::info("training step: {}{}{}", description(),
                 plan_.captured ? ", one recorded per batch shape and replayed" : "",
                 plan_.graph_safe_optimizer ? ", the optimizer over flat gradients" : "");
  }
  if (options_.run.precision == util::Precision::kFp16) scaler_ = std::make_unique<GradScaler>();
  if (main && options_.run.precision != util::Precision::kFp32) {
    spdlog::info(
        "precision {}: forward passes under autocast; weights, gradients, optimizer state and loss in "
        "fp32{}",
        util::precision_name(options_.run.precision), scaler_ ? ", loss scaling" : "");
  }
  if (resume != nullptr) {
    load_saved_optimizer(*resume, "optimizer", *optimizer_, model);
    move_optimizer_state(*optimizer_, options_.device);
  }
}

TrainingStep::~TrainingStep() = default;

std::string TrainingStep::description() const { return step_description(plan_, options_.device, recording_failure_); }

std::optional<torch::Tensor> TrainingStep::run_captured(const TrainingBatch& batch) {
  try {
    return captured_->run(batch.inputs, batch.targets, denominator_());
  } catch (const std::runtime_error& e) {
    if (parse_cuda_graphs(options_.run.cuda_graphs) == CudaGraphs::kOn) throw;
    spdlog::warn("{}; the step runs eagerly from here on", e.what());
    recording_failure_ = e.what();
    captured_.reset();
    return std::nullopt;
  }
}

std::pair<torch::Tensor, std::int64_t> TrainingStep::forward_backward(const TrainingBatch& batch, int workers) {
  applied_ = false;
  if (captured_ && batch.inputs.size(0) > 0) {
    if (auto loss = run_captured(batch)) {
      applied_ = true;
      return {*loss, 0};
    }
  }
  const auto parameters = task_.model().parameters();
  const auto task_loss = task_.loss_share(batch);
  // Autocast covers the forward pass and the loss; backward follows the dtypes it chose.
  const auto autocast = util::autocast_for(options_.run.precision, options_.device);
  const double scale = scaler_ ? scaler_->scale() : 1.0;
  const ChunkLossFn loss_fn = [&](const torch::Tensor& inputs, const torch::Tensor& targets, torch::Tensor* outputs) {
    const util::AutocastScope precision(autocast);
    const auto loss = task_loss(inputs, targets, outputs);
    return scaler_ ? scaler_->scale_loss(loss) : loss;
  };
  const std::int64_t rows = batch.inputs.size(0);
  if (rows == 0) {  // a last global batch with fewer rows than ranks: zeros into the all-reduce
    if (gradients_) gradients_->zero();
    return {torch::zeros({}, torch::TensorOptions(torch::kDouble).device(options_.device)), 0};
  }
  const std::int64_t micro = std::max<std::int64_t>(1, std::min<std::int64_t>(options_.run.parallel.accum_steps, rows));
  torch::Tensor loss;
  std::int64_t correct = 0;
  for (std::int64_t k = 0; k < micro; ++k) {
    const std::int64_t begin = k * rows / micro, end = (k + 1) * rows / micro;
    const TrainingBatch part{batch.inputs.slice(0, begin, end), batch.targets.slice(0, begin, end), batch.global_rows};
    // The first micro-batch sets the gradients (into the all-reduce buffer's views when
    // there is one), the others add to them.
    const auto output = k > 0        ? GradientOutput::kAccumulate
                        : gradients_ ? GradientOutput::kIntoExisting
                                     : GradientOutput::kReplace;
    if (buckets_ && k == micro - 1) buckets_->arm();  // the backward that completes the gradients
    const auto step = split_forward_backward(parameters, part.inputs, part.targets, workers, loss_fn, output,
                                             /*read_loss=*/false);
    const auto part_loss = scale != 1.0 ? step.loss_value / scale : step.loss_value;
    loss = loss.defined() ? loss + part_loss : part_loss;
    if (has_accuracy_) correct += task_.correct_predictions(part, step.outputs).value_or(0);
  }
  return {loss, correct};
}

std::vector<double> TrainingStep::all_reduce(const std::vector<double>& numbers) {
  all_reduce_seconds_ += buckets_->finish();
  buckets_overlapped_ += static_cast<std::int64_t>(buckets_->started_during_backward());
  table_rows_reduced_ += buckets_->rows_reduced();
  all_reduces_ += 1;
  return dist_.all_reduce_sum(numbers);
}

bool TrainingStep::apply(std::int64_t global_step) {
  if (applied_) return true;  // the captured step did it all
  if (!gradients_usable(global_step)) return false;
  optimizer_->step();  // which clips the gradients (optimizer.h)
  return true;
}

bool TrainingStep::gradients_usable(std::int64_t global_step) {
  if (!scaler_) return true;
  const bool finite = scaler_->unscale(task_.model().parameters());
  scaler_->update(finite);
  if (!finite && dist_.is_main()) {
    spdlog::debug("step {}: gradients not finite, step skipped, loss scale now {}", global_step, scaler_->scale());
  }
  return finite;
}

double TrainingStep::mean_all_reduce_s() const {
  return all_reduces_ > 0 ? all_reduce_seconds_ / static_cast<double>(all_reduces_) : 0;
}

std::string TrainingStep::all_reduce_summary() const {
  if (all_reduces_ == 0) return "";
  const auto steps = static_cast<double>(all_reduces_);
  return fmt::format(
      ", {} processes, waiting {:.1f} ms per step for the gradient all-reduce ({:.1f} of {} "
      "buckets started during backward, {:.0f} of {} embedding rows summed)",
      dist_.world_size(), 1000 * mean_all_reduce_s(), static_cast<double>(buckets_overlapped_) / steps,
      buckets_->bucket_count(), static_cast<double>(table_rows_reduced_) / steps, buckets_->table_rows());
}

}  // namespace dls::train
