// The layout of many tensors in one flat [N] tensor: each in turn, back to back. The gradient
// buffer lays the parameters' gradients out so and the graph-safe optimizer its moments, which
// it updates against those gradients as whole [N] tensors: both take their views from here, so
// that the two layouts cannot drift apart.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace dls::util {

// One view of `flat` per tensor of `shapes`, shaped like it, in order from offset 0.
inline std::vector<torch::Tensor> flat_views(const torch::Tensor& flat, const std::vector<torch::Tensor>& shapes) {
  std::vector<torch::Tensor> views;
  views.reserve(shapes.size());
  std::int64_t offset = 0;
  for (const auto& t : shapes) {
    views.push_back(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
  return views;
}

}  // namespace dls::util
