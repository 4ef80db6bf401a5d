// The process group behind DistributedContext, shared by the files that use c10d:
// distributed.cpp (joining and the context's lifetime), process_group.cpp (the store, the
// group, and how a collective's failure becomes one line) and collectives.cpp. Only these
// include c10d's headers: CMake gives them USE_C10D_GLOO (and USE_C10D_NCCL with a CUDA
// LibTorch) and compiles them outside the unity batches (src/CMakeLists.txt).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <torch/version.h>

#if defined(DLS_HAVE_GLOO) || defined(DLS_HAVE_NCCL)
#define DLS_HAVE_C10D 1
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
#ifdef DLS_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef DLS_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "dls/train/parallel/distributed.h"

namespace dls::train {

#ifdef DLS_HAVE_C10D

using Clock = std::chrono::steady_clock;

// LibTorch 2.x runs collectives on a c10d::Backend (ProcessGroupGloo derives from it);
// 1.13's ProcessGroupGloo is itself the ProcessGroup. Both have the same collective calls.
#if TORCH_VERSION_MAJOR >= 2
using Group = c10d::Backend;
#else
using Group = c10d::ProcessGroup;
#endif

struct DistributedContext::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<Group> group;
  std::string failure;  // the first collective's error: the group is unusable after it
  bool stuck = false;   // a collective outlived its wait: its thread may never return

  // Collectives started and not yet waited for (start_all_reduce), in launch order.
  std::vector<std::pair<c10::intrusive_ptr<c10d::Work>, std::string>> pending;

  // Runs the collective that `start` launches to completion and returns its wall time;
  // turns any failure into the one-line error of distributed.h.
  double run(int rank, std::chrono::milliseconds timeout, const std::string& what,
             const std::function<c10::intrusive_ptr<c10d::Work>()>& start);
  // Launches a collective; a failure to launch (NCCL checks its communicator here) is the
  // same one-line error.
  c10::intrusive_ptr<c10d::Work> launch(int rank, std::chrono::milliseconds timeout, const std::string& what,
                                        const std::function<c10::intrusive_ptr<c10d::Work>()>& start);
  // Waits for `work` (launched `begin`); the same errors as run().
  void wait(int rank, std::chrono::milliseconds timeout, const std::string& what, c10d::Work& work,
            Clock::time_point begin);
  // Records `error` as the group's failure and throws the one-line error.
  [[noreturn]] void fail(int rank, std::chrono::milliseconds timeout, const std::string& what,
                         const std::exception& error, Clock::time_point begin);
};

namespace process_group {

// `tensor` where the collectives take it: itself, or a copy on `device`.
torch::Tensor on_device(const torch::Tensor& tensor, const torch::Device& device);
double seconds_since(Clock::time_point start);
std::string format_seconds(double seconds);  // "%.1f" under 10 s, else "%.0f"
std::string format_timeout(std::chrono::milliseconds timeout);
// The first line of an exception's message, without Gloo's "[file.cc:123] " prefix and
// without c10's backtrace: what a one-line error can carry.
std::string cause_of(const std::exception& error);

// Joining mirrors torch.distributed.init_process_group(init_method="env://") of PyTorch
// 1.13 (process_group.cpp says how): the TCP store of the launcher's environment, the
// backend's group on it, and the store-based barrier every rank waits in.
c10::intrusive_ptr<c10d::Store> connect_store(const DistributedEnvironment& env, std::chrono::milliseconds timeout);
c10::intrusive_ptr<Group> make_group(const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
                                     const DistributedEnvironment& env, std::chrono::milliseconds timeout);
void store_based_barrier(c10d::Store& store, int world_size, std::chrono::milliseconds timeout);

}  // namespace process_group

#else  // no c10d backend compiled in

struct DistributedContext::Impl {};

#endif

}  // namespace dls::train
