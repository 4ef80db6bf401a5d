// Loss scaling for fp16 training (--precision fp16, CUDA), as torch.cuda.amp.GradScaler:
// small fp16 gradients underflow to zero, so the loss is multiplied by a large scale before
// backward and the fp32 gradients divided by it before the optimizer step. A step whose
// gradients hold an inf or NaN (the scale was too large) is skipped and the scale halved;
// after growth_interval good steps in a row it doubles.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace dls::train {

struct GradScalerOptions {
  double init_scale = 65536.0;          // 2^16, PyTorch's default
  double growth_factor = 2.0;           // after growth_interval finite steps in a row
  double backoff_factor = 0.5;          // after a step with an inf or NaN gradient
  std::int64_t growth_interval = 2000;  // finite steps before the scale grows
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  double scale() const { return scale_; }
  // loss * scale.
  torch::Tensor scale_loss(const torch::Tensor& loss) const;
  // Divides every defined gradient of `parameters` by the scale (in place) and returns
  // whether all of them are finite.
  bool unscale(const std::vector<torch::Tensor>& parameters) const;
  // After a step's unscale: backs off (gradients not finite: the caller skips the optimizer
  // step) or counts a good step and grows the scale every growth_interval of them.
  void update(bool gradients_finite);
  std::int64_t skipped_steps() const { return skipped_; }

 private:
  GradScalerOptions options_;
  double scale_;
  std::int64_t good_steps_ = 0;  // finite steps since the last change of the scale
  std::int64_t skipped_ = 0;
};

}  // namespace dls::train
