// An exponential moving average of a model's weights (--ema-decay): after every optimizer
// step ema = D * ema + (1 - D) * w, kept in fp32 on the weights' device. The loop evaluates
// and saves the average by swapping it into the model for a while (SwappedWeights).
#pragma once

#include <vector>

#include <torch/types.h>

namespace dls::train {

class ExponentialMovingAverage {
 public:
  // Starts the average at `parameters` (fp32 copies on their devices); 0 < decay < 1.
  ExponentialMovingAverage(const std::vector<torch::Tensor>& parameters, double decay);

  // ema = decay * ema + (1 - decay) * w for each parameter w (same order as at construction).
  void update(const std::vector<torch::Tensor>& parameters);
  // The average becomes `parameters` (resuming a run whose checkpoint holds one).
  void assign(const std::vector<torch::Tensor>& parameters);

  const std::vector<torch::Tensor>& averages() const { return averages_; }
  double decay() const { return decay_; }

 private:
  std::vector<torch::Tensor> averages_;  // fp32, one per parameter
  double decay_;
};

// Copies `weights` into `parameters` for its lifetime and puts the originals back, bit for
// bit, when it ends (a copy is kept, so that any dtype round-trips).
class SwappedWeights {
 public:
  SwappedWeights(std::vector<torch::Tensor> parameters, const std::vector<torch::Tensor>& weights);
  ~SwappedWeights();
  SwappedWeights(const SwappedWeights&) = delete;
  SwappedWeights& operator=(const SwappedWeights&) = delete;

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> originals_;
};

}  // namespace dls::train
