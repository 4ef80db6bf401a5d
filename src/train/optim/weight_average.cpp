#include "dls/train/optim/weight_average.h"

#include <algorithm>
#include <stdexcept>

#include <torch/torch.h>

namespace dls::train {

namespace {

void check_same_count(std::size_t expected, std::size_t got) {
  if (expected != got) {
    throw std::invalid_argument("weight average: " + std::to_string(got) + " tensors where the average holds " +
                                std::to_string(expected));
  }
}

}  // namespace

ExponentialMovingAverage::ExponentialMovingAverage(const std::vector<torch::Tensor>& parameters, double decay)
    : decay_(decay) {
  if (!(decay > 0 && decay < 1)) throw std::invalid_argument("--ema-decay: must lie in (0, 1)");
  torch::NoGradGuard no_grad;
  for (const auto& p : parameters)
    averages_.push_back(p.detach().to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true));
}

double ExponentialMovingAverage::current_decay() const {
  const double n = static_cast<double>(updates_);
  return std::min(decay_, (1.0 + n) / (10.0 + n));
}

void ExponentialMovingAverage::update(const std::vector<torch::Tensor>& parameters) {
  check_same_count(averages_.size(), parameters.size());
  torch::NoGradGuard no_grad;
  const double d = current_decay();
  for (std::size_t i = 0; i < averages_.size(); ++i) {
    averages_[i].mul_(d).add_(parameters[i].detach().to(torch::kFloat32), 1.0 - d);
  }
  ++updates_;
}

void ExponentialMovingAverage::assign(const std::vector<torch::Tensor>& parameters) {
  check_same_count(averages_.size(), parameters.size());
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < averages_.size(); ++i) averages_[i].copy_(parameters[i]);
}

SwappedWeights::SwappedWeights(std::vector<torch::Tensor> parameters, const std::vector<torch::Tensor>& weights)
    : parameters_(std::move(parameters)) {
  check_same_count(parameters_.size(), weights.size());
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    originals_.push_back(parameters_[i].detach().clone());
    parameters_[i].copy_(weights[i]);
  }
}

SwappedWeights::~SwappedWeights() {
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].copy_(originals_[i]);
}

}  // namespace dls::train
