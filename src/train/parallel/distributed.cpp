// DistributedContext's lifetime: joining the process group of the launcher's environment
// (or none, alone), which backends this build has, and leaving the group. The store and
// the group themselves: process_group.{h,cpp}; the collectives: collectives.cpp.
#include "train/parallel/process_group.h"

#include <csignal>
#include <stdexcept>
#include <string>
#include <utility>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <spdlog/spdlog.h>

#include "dls/util/parent_death.h"

namespace dls::train {

#ifdef DLS_HAVE_C10D
using namespace process_group;
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
  // torchrun's agent killed outright (SIGKILL, the OOM killer) left its workers training as
  // orphans for the rest of the run: they stop as on SIGTERM, with a checkpoint.
  if (env.under_torchrun) util::stop_when_parent_dies();
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

}  // namespace dls::train
