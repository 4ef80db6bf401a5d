// An exponential moving average of a model's weights (--ema-decay): after the n-th optimizer
// step (n = 0, 1, ...) ema = d * ema + (1 - d) * w with d = min(D, (1 + n) / (10 + n)), kept
// in fp32 on the weights' device. The warm-up of d (TensorFlow's ExponentialMovingAverage
// with num_updates) keeps the initial, untrained weights out of the average: with d = D from
// the start, D = 0.999 still holds 0.999^1820 = 16 % of them after a 20-minute run's 1,820
// steps. The loop evaluates and saves the average by swapping it into the model for a while
// (SwappedWeights).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace dls::train {

class ExponentialMovingAverage {
 public:
  // Starts the average at `parameters` (fp32 copies on their devices); 0 < decay < 1.
  ExponentialMovingAverage(const std::vector<torch::Tensor>& parameters, double decay);

  // ema = d * ema + (1 - d) * w for each parameter w (same order as at construction), with
  // d = current_decay(); then one more update is counted.
  void update(const std::vector<torch::Tensor>& parameters);
  double current_decay() const;  // min(D, (1 + n) / (10 + n)) for the n updates done
  std::int64_t updates() const { return updates_; }
  void set_updates(std::int64_t n) { updates_ = n; }  // resuming: the updates the average has had
  // The average becomes `parameters` (resuming a run whose checkpoint holds one).
  void assign(const std::vector<torch::Tensor>& parameters);

  const std::vector<torch::Tensor>& averages() const { return averages_; }
  double decay() const { return decay_; }

 private:
  std::vector<torch::Tensor> averages_;  // fp32, one per parameter
  double decay_;
  std::int64_t updates_ = 0;
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
