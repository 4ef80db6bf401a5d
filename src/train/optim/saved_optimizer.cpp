#include "dls/train/optim/saved_optimizer.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/saved_tensors.h"
#include "train/optim/adam_state.h"

namespace dls::train {

namespace {

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

// `moment`'s part that `part` (a view of `parameter`) is of the parameter: the same sizes,
// strides and offset. Moments are laid out as their parameters (contiguous).
torch::Tensor moment_part(const torch::Tensor& moment, const torch::Tensor& parameter, const torch::Tensor& part) {
  TORCH_CHECK(moment.is_contiguous() && parameter.is_contiguous() && moment.sizes() == parameter.sizes(),
              "optimizer state laid out unlike its parameter");
  return moment.as_strided(part.sizes(), part.strides(),
                           moment.storage_offset() + part.storage_offset() - parameter.storage_offset());
}

// While it lives, the optimizer holds the model's parameters in their saved layout: one
// group of the saved_parameters() views of the parameters it trains (all of the model's, or
// those with gradients: GradientBuffer's), in the model's order, no state; then what it held
// goes back.
class SavedLayout {
 public:
  SavedLayout(torch::optim::Optimizer& optimizer, const torch::nn::Module& model) : optimizer_(optimizer) {
    parameters_ = model.parameters();
    std::unordered_map<const void*, std::size_t> by_storage;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      by_storage.emplace(parameters_[i].storage().unsafeGetStorageImpl(), i);
    }
    // The optimizer's parameters must be some of the model's, in the model's order.
    std::unordered_set<std::size_t> trained;
    std::size_t last = 0;  // the model's index of the optimizer's previous parameter
    applies_ = true;
    for (const auto& group : optimizer.param_groups()) {
      for (const auto& p : group.params()) {
        const auto found = by_storage.find(p.storage().unsafeGetStorageImpl());
        applies_ = applies_ && found != by_storage.end() && p.is_same(parameters_[found->second]) &&
                   (trained.empty() || found->second > last);
        if (applies_) trained.insert(last = found->second);
      }
    }
    if (!applies_) return;
    for (auto& [name, part] : saved_parameters(model)) {
      const auto owner = by_storage.at(part.storage().unsafeGetStorageImpl());
      if (trained.count(owner) == 0) continue;
      parts_.push_back(part);
      owners_.push_back(owner);
    }
    for (auto& group : optimizer.param_groups()) group_params_.push_back(std::move(group.params()));
    for (auto& group : optimizer.param_groups()) group.params().clear();
    optimizer.param_groups().front().params() = parts_;
    state_ = std::move(optimizer.state());
    optimizer.state().clear();
  }
  ~SavedLayout() {
    if (!applies_) return;
    for (std::size_t g = 0; g < group_params_.size(); ++g) optimizer_.param_groups()[g].params() = group_params_[g];
    optimizer_.state() = std::move(state_);
  }
  SavedLayout(const SavedLayout&) = delete;
  SavedLayout& operator=(const SavedLayout&) = delete;

  bool applies() const { return applies_; }

  // Before a save: each part's state, its moments the part's share of its parameter's.
  void split_state() {
    for (std::size_t j = 0; j < parts_.size(); ++j) {
      const auto& parameter = parameters_[owners_[j]];
      const auto found = state_.find(state_key(state_, parameter));
      if (found == state_.end()) continue;
      auto state = found->second->clone();
      const bool whole = parts_[j].is_same(parameter);
      for_adam_state(state.get(), [&](auto& s) {
        const auto part_of = [&](const torch::Tensor& moment) {
          return !moment.defined() || whole ? moment : moment_part(moment, parameter, parts_[j]).clone();
        };
        s.exp_avg(part_of(s.exp_avg()));
        s.exp_avg_sq(part_of(s.exp_avg_sq()));
        if (s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(part_of(s.max_exp_avg_sq()));
      });
      optimizer_.state()[state_key(optimizer_.state(), parts_[j])] = std::move(state);
    }
  }

  // After a load: each parameter's state joined from its parts' (which the load gave).
  void join_state() {
    StateMap joined;
    auto& loaded = optimizer_.state();
    for (std::size_t j = 0; j < parts_.size(); ++j) {
      const auto& parameter = parameters_[owners_[j]];
      const auto found = loaded.find(state_key(loaded, parts_[j]));
      if (found == loaded.end()) continue;
      const auto key = state_key(joined, parameter);
      if (parts_[j].is_same(parameter)) {
        joined[key] = std::move(found->second);
        continue;
      }
      if (joined.find(key) == joined.end()) {  // the first part: its step, moments of the whole
        auto state = found->second->clone();
        for_adam_state(state.get(), [&](auto& s) {
          const auto whole = [&](const torch::Tensor& moment) {
            return moment.defined() ? torch::zeros(parameter.sizes(), moment.options()) : moment;
          };
          s.exp_avg(whole(s.exp_avg()));
          s.exp_avg_sq(whole(s.exp_avg_sq()));
          s.max_exp_avg_sq(whole(s.max_exp_avg_sq()));
        });
        joined[key] = std::move(state);
      }
      auto* target = joined[key].get();
      for_adam_state(found->second.get(), [&](auto& part) {
        for_adam_state(target, [&](auto& s) {
          TORCH_CHECK(part.step() == s.step(), "the heads of one layer at different steps");
          torch::NoGradGuard no_grad;
          const auto copy = [&](const torch::Tensor& into, const torch::Tensor& from) {
            if (into.defined() && from.defined()) moment_part(into, parameter, parts_[j]).copy_(from);
          };
          copy(s.exp_avg(), part.exp_avg());
          copy(s.exp_avg_sq(), part.exp_avg_sq());
          copy(s.max_exp_avg_sq(), part.max_exp_avg_sq());
        });
      });
    }
    state_ = std::move(joined);
  }

 private:
  torch::optim::Optimizer& optimizer_;
  bool applies_ = false;
  std::vector<torch::Tensor> parameters_;  // the model's, in parameters() order
  std::vector<torch::Tensor> parts_;       // saved_parameters(): views of them
  std::vector<std::size_t> owners_;        // the parameter each part is of
  std::vector<std::vector<torch::Tensor>> group_params_;
  StateMap state_;  // the optimizer's own state, back in place at the end
};

}  // namespace

void add_saved_optimizer(checkpoint::CheckpointWriter& writer, const std::string& name,
                         torch::optim::Optimizer& optimizer, const torch::nn::Module& model) {
  SavedLayout layout(optimizer, model);
  if (layout.applies()) layout.split_state();
  writer.add_optimizer(name, optimizer);
}

void load_saved_optimizer(const checkpoint::CheckpointReader& reader, const std::string& name,
                          torch::optim::Optimizer& optimizer, const torch::nn::Module& model) {
  SavedLayout layout(optimizer, model);
  reader.load_optimizer(name, optimizer);
  if (!layout.applies()) return;
  try {
    layout.join_state();
  } catch (const std::exception& e) {
    throw checkpoint::CheckpointError(reader.path() + ": optimizer state does not match: " + e.what());
  }
}

}  // namespace dls::train
