#include "dls/train/parallel/gradient_buffer.h"

#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "dls/util/flat_views.h"

namespace dls::train {

namespace {

bool is_view_of(const torch::Tensor& grad, const torch::Tensor& view) {
  return grad.defined() && grad.data_ptr() == view.data_ptr() && grad.sizes() == view.sizes() &&
         grad.strides() == view.strides();
}

}  // namespace

GradientBuffer::GradientBuffer(const std::vector<torch::Tensor>& parameters) {
  std::int64_t total = 0;
  for (const auto& p : parameters) {
    if (!p.requires_grad()) continue;
    if (!parameters_.empty() &&
        (p.scalar_type() != parameters_.front().scalar_type() || p.device() != parameters_.front().device())) {
      throw std::invalid_argument(std::string("GradientBuffer: parameters of different dtypes or devices (") +
                                  c10::toString(parameters_.front().scalar_type()) + " on " +
                                  parameters_.front().device().str() + ", " + c10::toString(p.scalar_type()) + " on " +
                                  p.device().str() + ")");
    }
    parameters_.push_back(p);
    total += p.numel();
  }
  const auto options = parameters_.empty() ? torch::TensorOptions(torch::kFloat) : parameters_.front().options();
  flat_ = torch::zeros({total}, options.requires_grad(false));
  views_ = util::flat_views(flat_, parameters_);
  for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].mutable_grad() = views_[i];
}

void GradientBuffer::zero() { flat_.zero_(); }

bool GradientBuffer::views_intact() const {
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (!is_view_of(parameters_[i].grad(), views_[i])) return false;
  }
  return true;
}

std::size_t GradientBuffer::adopt_gradients() {
  torch::NoGradGuard no_grad;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    auto& p = parameters_[i];
    const auto grad = p.grad();
    if (is_view_of(grad, views_[i])) continue;
    if (grad.defined()) {
      views_[i].copy_(grad);
    } else {
      views_[i].zero_();
    }
    p.mutable_grad() = views_[i];
    ++copied;
  }
  return copied;
}

}  // namespace dls::train
