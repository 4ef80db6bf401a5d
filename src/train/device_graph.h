// One recorded run of device work, replayed with a single launch: a CUDA graph
// (at::cuda::CUDAGraph) behind a small interface, so that only device_graph_cuda.cpp sees
// CUDA's headers. A build against a LibTorch without CUDA (Debian's) compiles
// device_graph_none.cpp instead, where available() is false and capture() throws; CMake's
// DLS_CUDA_GRAPHS=OFF does the same on a CUDA build. (Private to src/train.)
#pragma once

#include <functional>
#include <memory>

#include <torch/types.h>

namespace dls::train {

class DeviceGraph {
 public:
  // Whether this build can record graphs and a CUDA device is visible.
  static bool available();

  DeviceGraph();
  ~DeviceGraph();
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;

  // On a side stream of `device`: runs `warm_up` twice (the lazy initialisations a capture
  // may not do -- cuBLAS workspaces, the autograd engine's device thread, the allocator's
  // first blocks), then records `work` without running it. The autocast weight cache is off
  // while recording (a cached cast would be replayed stale). `share_pool_with`: a graph whose
  // memory pool this one shares (graphs replayed one at a time on one stream, keeping no
  // tensor of their own alive), nullptr for a pool of its own. Throws std::runtime_error
  // when the recording fails, with the device left usable.
  void capture(const torch::Device& device, const std::function<void()>& warm_up, const std::function<void()>& work,
               const DeviceGraph* share_pool_with);
  // Runs the recorded work once on the current stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dls::train
