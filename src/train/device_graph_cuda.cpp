// DeviceGraph on CUDA (device_graph.h): at::cuda::CUDAGraph, recorded on a side stream.
#include <stdexcept>
#include <string>

#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "train/device_graph.h"

namespace dls::train {

struct DeviceGraph::Impl {
  at::cuda::CUDAGraph graph;
  bool recorded = false;
};

bool DeviceGraph::available() { return torch::cuda::is_available(); }

DeviceGraph::DeviceGraph() : impl_(std::make_unique<Impl>()) {}
DeviceGraph::~DeviceGraph() = default;

void DeviceGraph::capture(const torch::Device& device, const std::function<void()>& warm_up,
                          const std::function<void()>& work, const DeviceGraph* share_pool_with) {
  if (!device.is_cuda()) throw std::runtime_error("CUDA graphs: the device is " + device.str() + ", not CUDA");
  const c10::cuda::CUDAGuard on_device(device);
  // Everything queued so far first: the side stream then sees the tensors it was given.
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
  auto side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index());
  const c10::cuda::CUDAStreamGuard on_side(side);
  for (int i = 0; i < 2; ++i) warm_up();
  side.synchronize();
  const bool cache = at::autocast::is_autocast_cache_enabled();
  at::autocast::set_autocast_cache_enabled(false);
  auto pool = decltype(impl_->graph.pool()){0, 0};
  if (share_pool_with != nullptr && share_pool_with->impl_->recorded) pool = share_pool_with->impl_->graph.pool();
  try {
    impl_->graph.capture_begin(pool);
    try {
      work();
    } catch (...) {
      try {
        impl_->graph.capture_end();  // ends the stream's capture, whatever it recorded
      } catch (...) {
      }
      throw;
    }
    impl_->graph.capture_end();
  } catch (const std::exception& e) {
    at::autocast::set_autocast_cache_enabled(cache);
    std::string what = e.what();
    throw std::runtime_error("CUDA graphs: recording the step failed: " + what.substr(0, what.find('\n')));
  }
  at::autocast::set_autocast_cache_enabled(cache);
  side.synchronize();
  impl_->recorded = true;
}

void DeviceGraph::replay() {
  if (!impl_->recorded) throw std::runtime_error("CUDA graphs: nothing recorded");
  impl_->graph.replay();
}

}  // namespace dls::train
