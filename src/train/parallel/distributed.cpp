// The process group behind DistributedContext. This is the one file that includes c10d's
// headers: CMake gives it USE_C10D_GLOO (and USE_C10D_NCCL with a CUDA LibTorch) and
// compiles it outside the unity batches (src/CMakeLists.txt).
//
// Joining mirrors torch.distributed.init_process_group("gloo", init_method="env://") of
// PyTorch 1.13 (rendezvous.py: _env_rendezvous_handler, _create_c10d_store):
//  - TORCHELASTIC_USE_AGENT_STORE=True (torchrun with its default static rendezvous): the
//    agent already serves a TCPStore at MASTER_ADDR:MASTER_PORT; every rank connects as a
//    client, under PrefixStore("/worker/attempt_<TORCHELASTIC_RESTART_COUNT>").
//  - otherwise rank 0 serves the TCPStore (multi-tenant) and the other ranks connect.
// Both with numWorkers = world size and the context's timeout. Then, as init_process_group
// does for the default group (distributed_c10d.py): the store is wrapped in
// PrefixStore("default_pg"), the group's keys go under a further PrefixStore("0") (its
// name), ProcessGroupGloo is built with the timeout, every rank waits in the store-based
// barrier (key "store_based_barrier_key:1" counted up to the world size), and the group
// agrees on its sequence number. The store's keys are therefore laid out exactly as
// Python's, which the tests check by running a Python rank beside a C++ one.
#include "dls/train/parallel/distributed.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <spdlog/spdlog.h>
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

#include "dls/train/parallel/gradient_buffer.h"

namespace dls::train {

namespace {

#ifdef DLS_HAVE_C10D
using Clock = std::chrono::steady_clock;

// `tensor` where the collectives take it: itself, or a copy on `device`.
torch::Tensor on_device(const torch::Tensor& tensor, const torch::Device& device) {
  return tensor.device() == device ? tensor : tensor.to(device);
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string format_seconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), seconds < 10 ? "%.1f" : "%.0f", seconds);
  return buffer;
}

std::string format_timeout(std::chrono::milliseconds timeout) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", static_cast<double>(timeout.count()) / 1000.0);
  return buffer;
}

// The first line of an exception's message, without Gloo's "[file.cc:123] " prefix and
// without c10's backtrace: what a one-line error can carry.
std::string cause_of(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  std::string text = c10_error ? c10_error->what_without_backtrace() : error.what();
  const auto start = text.find_first_not_of(" \n");
  text = start == std::string::npos ? "" : text.substr(start);
  text = text.substr(0, text.find('\n'));
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find("] ");
    if (close != std::string::npos && text.find(':') < close) text = text.substr(close + 2);
  }
  return text.empty() ? "unknown error" : text;
}
#endif

}  // namespace

// ---------------------------------------------------------------------------------------
#ifdef DLS_HAVE_C10D

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

double DistributedContext::Impl::run(int rank, std::chrono::milliseconds timeout, const std::string& what,
                                     const std::function<c10::intrusive_ptr<c10d::Work>()>& start) {
  if (!failure.empty()) {
    throw std::runtime_error("rank " + std::to_string(rank) + ": " + what + ": the process group failed before (" +
                             failure + ")");
  }
  const auto begin = Clock::now();
  wait(rank, timeout, what, *launch(rank, timeout, what, start), begin);
  return seconds_since(begin);
}

c10::intrusive_ptr<c10d::Work> DistributedContext::Impl::launch(
    int rank, std::chrono::milliseconds timeout, const std::string& what,
    const std::function<c10::intrusive_ptr<c10d::Work>()>& start) {
  const auto begin = Clock::now();
  try {
    return start();
  } catch (const std::exception& error) {
    fail(rank, timeout, what, error, begin);
  }
}

void DistributedContext::Impl::fail(int rank, std::chrono::milliseconds timeout, const std::string& what,
                                    const std::exception& error, Clock::time_point begin) {
  failure = what + ": " + cause_of(error);
  throw std::runtime_error("rank " + std::to_string(rank) + ": " + what + " failed after " +
                           format_seconds(seconds_since(begin)) + " s (timeout " + format_timeout(timeout) +
                           " s): " + cause_of(error));
}

void DistributedContext::Impl::wait(int rank, std::chrono::milliseconds timeout, const std::string& what,
                                    c10d::Work& work, Clock::time_point begin) {
  // Gloo's own timeout (the group's options) ends a collective that a peer never joins;
  // the wait's limit is a backstop in case it does not.
  const auto backstop = 2 * timeout + std::chrono::milliseconds(10000);
  try {
    work.wait(backstop);
  } catch (const std::exception& error) {
    stuck = seconds_since(begin) >= std::chrono::duration<double>(backstop).count();
    fail(rank, timeout, what, error, begin);
  }
}

namespace {

c10::intrusive_ptr<c10d::Store> connect_store(const DistributedEnvironment& env, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.master_port);
  options.numWorkers = static_cast<std::size_t>(env.world_size);
  options.timeout = timeout;
  if (env.use_agent_store) {
    options.isServer = false;
    auto agent_store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
    return c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + env.restart_count, agent_store);
  }
  options.isServer = env.rank == 0;
  options.multiTenant = true;
  return c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
}

// init_process_group's _store_based_barrier: every rank counts itself in under one key
// and waits until all have.
void store_based_barrier(c10d::Store& store, int world_size, std::chrono::milliseconds timeout) {
  const std::string key = "store_based_barrier_key:1";
  store.add(key, 1);
  const auto start = Clock::now();
  for (std::int64_t arrived = store.add(key, 0); arrived != world_size; arrived = store.add(key, 0)) {
    if (Clock::now() - start > timeout) {
      throw std::runtime_error("timed out in the store-based barrier after creating the group (" +
                               std::to_string(arrived) + " of " + std::to_string(world_size) + " ranks arrived)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

c10::intrusive_ptr<Group> make_group(const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
                                     const DistributedEnvironment& env, std::chrono::milliseconds timeout) {
#ifdef DLS_HAVE_GLOO
  if (backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // As torch.distributed does: the interfaces named in GLOO_SOCKET_IFNAME, else the
    // address the hostname resolves to if it is local, else the loopback interface.
    std::string names = env.gloo_socket_ifname;
    for (std::size_t begin = 0; !names.empty() && begin <= names.size();) {
      const auto end = std::min(names.find(',', begin), names.size());
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(names.substr(begin, end - begin)));
      begin = end + 1;
    }
    if (options->devices.empty()) options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    options->threads = static_cast<int>(options->devices.size()) * 2;
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
  }
#endif
#ifdef DLS_HAVE_NCCL
  if (backend == "nccl") {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.world_size, options);
  }
#endif
  throw std::logic_error("make_group: backend " + backend);
}

}  // namespace

#else  // no c10d backend compiled in

struct DistributedContext::Impl {};

#endif

namespace {

// Says why `backend` cannot be used in this build, or "" when it can.
std::string unavailable(const std::string& backend) {
  if (backend == "gloo") {
#ifdef DLS_HAVE_GLOO
    return "";
#else
    return "backend gloo: dlstudio-cpp was built without Gloo's headers (install libgloo-dev and rebuild)";
#endif
  }
  if (backend == "nccl") {
#ifdef DLS_HAVE_NCCL
    return "";
#else
    return std::string("backend nccl: this LibTorch (") + TORCH_VERSION +
           ") was built without CUDA/NCCL, or NCCL's header was not found at build time; use gloo";
#endif
  }
  return "unknown distributed backend '" + backend + "' (gloo or nccl)";
}

}  // namespace

bool distributed_backend_available(const std::string& backend) { return unavailable(backend).empty(); }

DistributedContext::DistributedContext() = default;
DistributedContext::~DistributedContext() {
#ifdef DLS_HAVE_C10D
  // A collective that outlived its wait may still hold a Gloo thread that the group's
  // destructor would join: leave the group to the end of the process rather than hang.
  if (impl_ && impl_->stuck) {
    (void)impl_->group.release();
    (void)impl_->store.release();
  }
#endif
}
DistributedContext::DistributedContext(DistributedContext&&) noexcept = default;
DistributedContext& DistributedContext::operator=(DistributedContext&&) noexcept = default;

bool DistributedContext::has_nccl() {
#ifdef DLS_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

DistributedContext DistributedContext::from_environment(DistributedOptions options, const EnvLookup& lookup) {
  const auto env = read_distributed_environment(lookup);
  if (!env) return DistributedContext(DistributedEnvironment{}, std::move(options));  // one process
  return DistributedContext(*env, std::move(options));
}

DistributedContext::DistributedContext(const DistributedEnvironment& env, DistributedOptions options)
    : rank_(env.rank), world_size_(env.world_size), local_rank_(env.local_rank), timeout_(options.timeout) {
  const auto why_not = unavailable(options.backend);
  device_ = options.device;
  if (env.world_size <= 1) {
    if (why_not.rfind("unknown", 0) == 0) throw std::invalid_argument(why_not);
    return;  // one process: no group to join
  }
  if (!why_not.empty()) throw std::runtime_error(why_not);
#ifdef DLS_HAVE_C10D
  backend_ = options.backend;
  // A peer that dies leaves sockets whose writes raise SIGPIPE, which would kill this
  // process before Gloo can report the closed connection (Python ignores SIGPIPE too).
  std::signal(SIGPIPE, SIG_IGN);
  const auto start = Clock::now();
  try {
    auto impl = std::make_unique<Impl>();
    // NCCL's communicators and kernels launched without a device use the current one.
    if (device_.is_cuda()) c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->setDevice(device_);
    impl->store = c10::make_intrusive<c10d::PrefixStore>("default_pg", connect_store(env, timeout_));
    impl->group = make_group(backend_, c10::make_intrusive<c10d::PrefixStore>("0", impl->store), env, timeout_);
    store_based_barrier(*impl->store, world_size_, timeout_);
    impl->group->setSequenceNumberForGroup();
    impl_ = std::move(impl);
  } catch (const std::exception& error) {
    throw std::runtime_error(
        "rank " + std::to_string(rank_) + ": joining the " + backend_ + " process group of " +
        std::to_string(world_size_) + " ranks at " + env.master_addr + ":" + std::to_string(env.master_port) +
        (env.use_agent_store ? " (torchrun's agent store)" : "") + " failed after " +
        format_seconds(seconds_since(start)) + " s (timeout " + format_timeout(timeout_) + " s): " + cause_of(error));
  }
  spdlog::info("rank {} of {} joined the {} process group at {}:{}{} in {} s", rank_, world_size_, backend_,
               env.master_addr, env.master_port, env.use_agent_store ? " (torchrun's agent store)" : "",
               format_seconds(seconds_since(start)));
#endif
}

// ---------------------------------------------------------------------------------------
// Collectives: no-ops in one process (impl_ is null; it always is without c10d).

void DistributedContext::broadcast(const std::vector<torch::Tensor>& tensors, int root) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  torch::NoGradGuard no_grad;
  // One flat tensor per dtype (a model's float parameters, a buffer's int64 counter, …):
  // c10d's broadcast takes one tensor per device, not a list of differently shaped ones.
  std::vector<c10::ScalarType> dtypes;
  for (const auto& t : tensors) {
    if (std::find(dtypes.begin(), dtypes.end(), t.scalar_type()) == dtypes.end()) dtypes.push_back(t.scalar_type());
  }
  for (const auto dtype : dtypes) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : tensors) {
      if (t.scalar_type() == dtype) parts.push_back(t.reshape({-1}));
    }
    std::vector<at::Tensor> flat{on_device(torch::cat(parts), device_)};  // [sum of numels]
    if (flat[0].numel() == 0) continue;
    c10d::BroadcastOptions options;
    options.rootRank = root;
    impl_->run(rank_, timeout_,
               "broadcast of " + std::to_string(parts.size()) + " " + c10::toString(dtype) + " tensors from rank " +
                   std::to_string(root),
               [&] { return impl_->group->broadcast(flat, options); });
    if (rank_ == root) continue;
    std::int64_t offset = 0;
    for (const auto& t : tensors) {
      if (t.scalar_type() != dtype) continue;
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
#endif
}

void DistributedContext::all_reduce_sum(torch::Tensor& tensor, const std::string& what) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  if (!tensor.is_contiguous()) throw std::invalid_argument(what + ": all_reduce_sum needs a contiguous tensor");
  std::vector<at::Tensor> tensors{on_device(tensor, device_)};
  impl_->run(rank_, timeout_, what, [&] { return impl_->group->allreduce(tensors); });
  if (!tensors[0].is_same(tensor)) tensor.copy_(tensors[0]);
#endif
}

void DistributedContext::all_reduce_gradients(GradientBuffer& gradients) {
  start_all_reduce(gradients.flat(), "all-reduce of " + std::to_string(gradients.numel()) + " gradients");
  last_all_reduce_seconds_ = finish_all_reduces();
}

void DistributedContext::start_all_reduce(const torch::Tensor& tensor, const std::string& what) {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  if (!tensor.is_contiguous()) throw std::invalid_argument(what + ": start_all_reduce needs a contiguous tensor");
  if (!impl_->failure.empty()) {
    throw std::runtime_error("rank " + std::to_string(rank_) + ": " + what + ": the process group failed before (" +
                             impl_->failure + ")");
  }
  std::vector<at::Tensor> tensors{tensor};
  impl_->pending.emplace_back(impl_->launch(rank_, timeout_, what, [&] { return impl_->group->allreduce(tensors); }),
                              what);
#endif
}

double DistributedContext::finish_all_reduces() {
  if (!impl_) return 0;
  double waited = 0;
#ifdef DLS_HAVE_C10D
  const auto begin = Clock::now();
  auto pending = std::move(impl_->pending);
  impl_->pending.clear();
  for (auto& [work, what] : pending) impl_->wait(rank_, timeout_, what, *work, begin);
  waited = seconds_since(begin);
#endif
  return waited;
}

std::vector<double> DistributedContext::all_reduce_sum(const std::vector<double>& values) {
  if (!impl_ || values.empty()) return values;
  auto tensor = torch::tensor(values, torch::kDouble);
  all_reduce_sum(tensor, "all-reduce of " + std::to_string(values.size()) + " numbers");
  return std::vector<double>(tensor.data_ptr<double>(), tensor.data_ptr<double>() + tensor.numel());
}

std::vector<torch::Tensor> DistributedContext::all_gather_rows(const torch::Tensor& rows) {
  if (rows.dim() == 0) throw std::invalid_argument("all_gather_rows: a tensor with rows, not a scalar");
  if (!impl_) return {rows};
  std::vector<torch::Tensor> gathered;
#ifdef DLS_HAVE_C10D
  const auto gather = [&](const torch::Tensor& mine, const std::string& what) {
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < world_size_; ++r) outputs[0].push_back(torch::empty_like(mine));
    std::vector<at::Tensor> inputs{mine};
    impl_->run(rank_, timeout_, what, [&] { return impl_->group->allgather(outputs, inputs); });
    return outputs[0];
  };
  // The row counts first; then every rank's rows padded to the longest share.
  const auto counts =
      gather(torch::full({1}, rows.size(0), torch::dtype(torch::kLong).device(device_)), "all-gather of row counts");
  std::int64_t longest = 0;
  for (const auto& c : counts) longest = std::max(longest, c.item<std::int64_t>());
  if (longest == 0) return std::vector<torch::Tensor>(static_cast<std::size_t>(world_size_), rows);  // all empty
  auto shape = rows.sizes().vec();
  shape[0] = longest;
  auto padded = torch::zeros(shape, rows.options().device(device_));
  padded.narrow(0, 0, rows.size(0)).copy_(rows);
  const auto all = gather(padded, "all-gather of " + std::to_string(longest) + "-row blocks");
  for (int r = 0; r < world_size_; ++r) {
    gathered.push_back(all[static_cast<std::size_t>(r)]
                           .narrow(0, 0, counts[static_cast<std::size_t>(r)].item<std::int64_t>())
                           .to(rows.device()));
  }
#endif
  return gathered;
}

void DistributedContext::barrier() {
  if (!impl_) return;
#ifdef DLS_HAVE_C10D
  impl_->run(rank_, timeout_, "barrier", [&] { return impl_->group->barrier(); });
#endif
}

}  // namespace dls::train
