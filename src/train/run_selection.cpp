#include "train/run_selection.h"

#include <map>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/layers/saved_tensors.h"

namespace dls::train {

namespace {

const char* const kEmaUpdatesText = "ema_updates";  // the updates the average has had
constexpr std::int64_t kWarmedUp = 1'000'000'000;   // (1 + n) / (10 + n) > any decay used

// The score named `metric` of an evaluation; nullopt when it has none (nothing evaluated).
std::optional<double> score_of(const EpochEvaluation& evaluation, const std::string& metric) {
  for (const auto& [name, value] : evaluation.scores) {
    if (name == metric) return value;
  }
  return std::nullopt;
}

}  // namespace

RunSelection::RunSelection(const settings::SelectionSettings& options, torch::nn::Module& model,
                           const checkpoint::CheckpointReader* resume)
    : model_(model) {
  if (options.best_metric != "none") {
    best_.emplace(options.best_metric, higher_is_better(options.best_metric), options.patience);
    if (resume != nullptr && resume->has_text("best")) best_->restore(resume->text("best"), resume->path());
  }
  if (options.ema_decay <= 0) return;
  ema_.emplace(model.parameters(), options.ema_decay);
  if (resume != nullptr && resume->has_module("ema")) {
    const SwappedWeights trained(model.parameters(), model.parameters());  // put back afterwards
    resume->load_module("ema", model);  // the average, read through the model's layout
    ema_->assign(model.parameters());
    // Averages written before the decay's warm-up had the full decay throughout.
    ema_->set_updates(resume->has_text(kEmaUpdatesText) ? std::stoll(resume->text(kEmaUpdatesText)) : kWarmedUp);
  } else if (resume != nullptr) {
    spdlog::info("{} holds no moving average: it starts from the checkpoint's weights", resume->path());
  }
}

void RunSelection::after_step() {
  if (ema_) ema_->update(model_.parameters());
}

std::unique_ptr<SwappedWeights> RunSelection::evaluation_weights() {
  return ema_ ? std::make_unique<SwappedWeights>(model_.parameters(), ema_->averages()) : nullptr;
}

RunSelection::Verdict RunSelection::judge(std::int64_t epoch, const EpochEvaluation& evaluation) {
  if (!best_ || evaluation.scores.empty()) return {};
  const auto score = score_of(evaluation, best_->metric());
  if (!score) {
    std::string names;
    for (const auto& entry : evaluation.scores) names += (names.empty() ? "" : ", ") + entry.first;
    throw std::runtime_error("--best-metric: no validation score '" + best_->metric() + "' (this program has " + names +
                             ")");
  }
  Verdict verdict;
  verdict.improved = best_->observe(epoch, *score);
  verdict.out_of_patience = best_->out_of_patience();
  // The best score is logged when it changes (checkpoint_policy.cpp); an epoch that did not
  // better it says so only as the countdown of --patience.
  if (!verdict.improved && best_->patience() > 0) {
    spdlog::info("no better validation {} for {} of --patience {} evaluations{}", best_->metric(),
                 best_->evaluations_without_improvement(), best_->patience(),
                 verdict.out_of_patience ? ": stopping" : "");
  } else if (!verdict.improved) {
    spdlog::debug("validation {}: no better than epoch {}'s", score_text(best_->metric(), *score), best_->best_epoch());
  }
  return verdict;
}

void RunSelection::describe(checkpoint::CheckpointWriter& writer) {
  if (ema_) {
    // Tensors are serialised by reference when the file is saved, so the average goes in as
    // copies of its own (a swap into the model would be undone by then), in the model's layout.
    const auto parameters = model_.parameters();
    std::vector<torch::Tensor> averages;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      averages.push_back(ema_->averages()[i].to(torch::kCPU, parameters[i].scalar_type(), false, true));
    }
    std::map<std::string, torch::Tensor> average_named;
    for (auto& [name, average] : saved_parameters(model_, averages)) average_named.emplace(name, average);
    auto tensors = saved_tensors(model_);  // the buffers as they are, the parameters by their averages
    for (auto& [name, tensor] : tensors) {
      const auto average = average_named.find(name);
      tensor = average != average_named.end() ? average->second
               : tensor.defined()             ? tensor.detach().cpu().clone()
                                              : tensor;
    }
    writer.add_module_tensors("ema", tensors);
    writer.add_text(kEmaUpdatesText, std::to_string(ema_->updates()));
  }
  if (best_) writer.add_text("best", best_->to_text());
}

}  // namespace dls::train
