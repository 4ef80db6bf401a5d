// Data parallelism across processes on LibTorch's c10d: joining the process group the way
// torch.distributed's env:// rendezvous does (so that torchrun launches our programs as it
// launches Python ones), and the few collectives a training loop needs.
//
//   auto dist = DistributedContext::from_environment(options);  // options.timeout: 5 min
//   dist.broadcast(initial_weights);                      // rank 0's weights everywhere
//   GradientBuffer grads(model->parameters());            // gradient_buffer.h
//   ... forward/backward of this rank's share (distributed_sampler.h) ...
//   dist.all_reduce_gradients(grads);                     // SUM over ranks, in place
//
// Without RANK/WORLD_SIZE in the environment the context is one process: world 1, rank 0,
// no process group, every collective a no-op, so trainers need no second code path.
// c10d stays inside distributed.cpp (a pimpl): its headers need Gloo's and USE_C10D_GLOO.
//
// For a training loop: the gradients must be all-reduced before anything reads them as
// the batch gradient (clipping by norm, the optimizer step), and every rank must make the
// same collective calls, also a rank whose share of a step is empty (it contributes zeros)
// and during evaluation. Identical gradients and weights keep the ranks' weights identical
// step after step (Gloo's all-reduce gives every rank the same sum), so weights are
// broadcast once, after building or loading the model. Rank 0 alone logs and writes
// checkpoints; a barrier() before the end keeps rank 0, which serves the store in a plain
// launch, alive until the others are done.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

namespace dls::train {

class GradientBuffer;

// What env:// reads, plus torchrun's extras (torch/distributed/rendezvous.py and
// elastic/agent/server/local_elastic_agent.py of PyTorch 1.13).
struct DistributedEnvironment {
  int rank = 0;                     // RANK
  int world_size = 1;               // WORLD_SIZE
  int local_rank = 0;               // LOCAL_RANK; RANK when unset (one machine)
  std::string master_addr;          // MASTER_ADDR: host of the TCPStore
  int master_port = 0;              // MASTER_PORT
  bool use_agent_store = false;     // TORCHELASTIC_USE_AGENT_STORE == "True" (torchrun's agent hosts the store)
  std::string restart_count = "0";  // TORCHELASTIC_RESTART_COUNT: the agent store's key prefix
  std::string gloo_socket_ifname;   // GLOO_SOCKET_IFNAME: comma-separated interfaces for Gloo
  bool under_torchrun = false;      // TORCHELASTIC_RESTART_COUNT set: a worker of torchrun's agent
};

// A getenv: returns nullptr for an unset variable. Tests pass a map's lookup.
using EnvLookup = std::function<const char*(const char* name)>;

// The launch described by the environment (std::getenv when `lookup` is empty): nullopt when
// neither RANK nor WORLD_SIZE is set (an ordinary single-process run). Throws
// std::runtime_error naming the variable when only one of them is set, when MASTER_ADDR or
// MASTER_PORT is missing (for world size > 1), or when a value is not a valid number
// (rank outside [0, world size), port outside [1, 65535]).
std::optional<DistributedEnvironment> read_distributed_environment(const EnvLookup& lookup = {});

// Where Gloo's transport listens. As torch.distributed chooses, the interfaces named in
// GLOO_SOCKET_IFNAME when it is set; else the address the hostname resolves to (Gloo's default
// device) -- except when the store is on a loopback address (MASTER_ADDR localhost, 127.x or
// ::1: every rank on this machine), where it is that loopback address. A machine whose
// hostname does not resolve (no line for it in /etc/hosts, as in many containers) would
// otherwise have Gloo print a warning on every start and beside a failure's one-line error
// before it falls back to the loopback interface anyway.
struct GlooListening {
  std::vector<std::string> interfaces;  // GLOO_SOCKET_IFNAME's, in order
  std::string address;                  // a loopback address; empty: the hostname's
};
GlooListening gloo_listening(const DistributedEnvironment& env);

// Whether this build can join a process group of `backend` ("gloo", "nccl"): gloo needs
// Gloo's headers at build time, nccl a CUDA LibTorch with NCCL.
bool distributed_backend_available(const std::string& backend);

struct DistributedOptions {
  std::string backend = "gloo";  // "gloo" (CPU tensors); "nccl" only with a CUDA LibTorch that has it
  // Bounds the store (connecting, waiting for peers), the group's rendezvous and every
  // collective; PyTorch's default is 30 min. A peer that dies usually fails the others at
  // once (Gloo sees the closed connection); one that stops answering, after this long.
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
  // Where this rank trains (util::choose_device gives each local rank its own GPU); a joined
  // context makes a CUDA device the current one. The collectives' own small tensors
  // (counts, loss sums) live there, as NCCL needs.
  torch::Device device = torch::kCPU;
};

class DistributedContext {
 public:
  // One process: world 1, rank 0, no process group.
  DistributedContext();
  // Whether this build can use NCCL (a CUDA LibTorch with it).
  static bool has_nccl();
  // Joins the group `env` describes, as env:// does (see distributed.cpp for the stores).
  // World size 1 joins nothing. Throws std::runtime_error with one line
  // "rank R: joining the gloo process group ... failed after T s (timeout S s): <cause>",
  // within about twice the timeout when a rank never arrives (the store's wait, then
  // Gloo's). Ignores SIGPIPE in the process, as Python does: a dead peer's socket must
  // give Gloo an error, not end this process.
  DistributedContext(const DistributedEnvironment& env, DistributedOptions options = {});
  // The launch in this process's environment; one process when RANK/WORLD_SIZE are unset.
  static DistributedContext from_environment(DistributedOptions options = {}, const EnvLookup& lookup = {});

  ~DistributedContext();
  DistributedContext(DistributedContext&&) noexcept;
  DistributedContext& operator=(DistributedContext&&) noexcept;

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  int local_rank() const { return local_rank_; }
  bool is_distributed() const { return impl_ != nullptr; }  // a process group was joined
  bool is_main() const { return rank_ == 0; }               // the rank that logs and saves
  const std::string& backend() const { return backend_; }   // "gloo", "nccl"; "none" alone
  std::chrono::milliseconds timeout() const { return timeout_; }
  // The device this rank trains on: the options' device, in one process too.
  const torch::Device& device() const { return device_; }

  // Collectives. Every rank calls the same ones in the same order with tensors of the same
  // shapes and dtypes. Gloo takes CPU and CUDA tensors, NCCL CUDA tensors on device();
  // broadcast, all_reduce_sum and all_gather_rows move others there and back. A failure (a peer died, the timeout
  // passed) throws one std::runtime_error "rank R: <what> failed after T s (timeout S s): <cause>"; the group is
  // unusable afterwards.

  // Overwrites `tensors` (any shapes, several dtypes; parameters and buffers) with root's.
  // Packs them into one flat tensor per dtype: one collective per dtype, not per tensor.
  void broadcast(const std::vector<torch::Tensor>& tensors, int root = 0);
  // Sums `tensor` (contiguous) over the ranks in place; `what` names it in errors.
  void all_reduce_sum(torch::Tensor& tensor, const std::string& what = "all-reduce");
  // Sums the gradient buffer's one flat tensor over the ranks in place (one collective),
  // timed: last_all_reduce_seconds().
  void all_reduce_gradients(GradientBuffer& gradients);
  // The same sum without waiting, for overlapping communication with computation: starts
  // summing `tensor` (contiguous; nothing may read or write it until the wait) and returns
  // at once. finish_all_reduces() waits for every started one, in the order they started,
  // and returns the wall time it waited; a failure of any throws the one-line error.
  void start_all_reduce(const torch::Tensor& tensor, const std::string& what);
  double finish_all_reduces();
  // Sums a few numbers (loss sums, counts) over the ranks.
  std::vector<double> all_reduce_sum(const std::vector<double>& values);
  // Every rank's `rows` (same dtype and trailing shape; the first dimension may differ,
  // e.g. uneven evaluation shares), in rank order; {rows} in one process.
  std::vector<torch::Tensor> all_gather_rows(const torch::Tensor& rows);
  // Returns when every rank has called it.
  void barrier();

  // Wall time of the last all_reduce_gradients in seconds (0 in one process): for reports.
  double last_all_reduce_seconds() const { return last_all_reduce_seconds_; }

 private:
  struct Impl;  // the store and the c10d process group
  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int world_size_ = 1;
  int local_rank_ = 0;
  std::string backend_ = "none";
  std::chrono::milliseconds timeout_{0};
  torch::Device device_ = torch::kCPU;
  double last_all_reduce_seconds_ = 0;
};

}  // namespace dls::train
