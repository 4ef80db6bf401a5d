// DeviceGraph in a build without CUDA graphs (device_graph.h): nothing can be recorded.
#include <stdexcept>

#include "train/device_graph.h"

namespace dls::train {

struct DeviceGraph::Impl {};

bool DeviceGraph::available() { return false; }

DeviceGraph::DeviceGraph() = default;
DeviceGraph::~DeviceGraph() = default;

void DeviceGraph::capture(const torch::Device&, const std::function<void()>&, const std::function<void()>&,
                          const DeviceGraph*) {
  throw std::runtime_error("CUDA graphs: this build has none (a LibTorch with CUDA and DLS_CUDA_GRAPHS=ON)");
}

void DeviceGraph::replay() { throw std::runtime_error("CUDA graphs: nothing recorded"); }

}  // namespace dls::train
