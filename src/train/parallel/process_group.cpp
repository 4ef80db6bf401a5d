// The store, the group and the failures of the process group (process_group.h).
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
#include "train/parallel/process_group.h"

#ifdef DLS_HAVE_C10D

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace dls::train {

namespace process_group {

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

// A TCPStore as `options` ask. LibTorch 2.4 and later ask for its libuv server by default,
// which a build without libuv refuses (Debian 13's LibTorch 2.6: "use_libuv was requested but
// PyTorch was build without libuv support"); that build gets the other server, the same
// protocol.
c10::intrusive_ptr<c10d::TCPStore> tcp_store(const std::string& host, c10d::TCPStoreOptions options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
  try {
    return c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& e) {
    if (!options.useLibUV || std::string(e.what()).find("without libuv") == std::string::npos) throw;
    options.useLibUV = false;
  }
#endif
  return c10::make_intrusive<c10d::TCPStore>(host, options);
}

c10::intrusive_ptr<c10d::Store> connect_store(const DistributedEnvironment& env, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.master_port);
  options.numWorkers = static_cast<std::size_t>(env.world_size);
  options.timeout = timeout;
  if (env.use_agent_store) {
    options.isServer = false;
    auto agent_store = tcp_store(env.master_addr, options);
    return c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + env.restart_count, agent_store);
  }
  options.isServer = env.rank == 0;
  options.multiTenant = true;
  // The server does not wait for the other ranks here: building the group waits for them
  // (the timeout), and a wait here as well made a rank that never started cost rank 0 twice
  // the timeout. A client still counts itself in (that is its part of the wait), which a
  // Python rank serving the store waits for.
  options.waitWorkers = !options.isServer;
  return tcp_store(env.master_addr, options);
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
    const auto listening = gloo_listening(env);  // (distributed.h)
    for (const auto& name : listening.interfaces) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
    }
    if (options->devices.empty()) {
      options->devices.push_back(listening.address.empty()
                                     ? c10d::ProcessGroupGloo::createDefaultDevice()
                                     : c10d::ProcessGroupGloo::createDeviceForHostname(listening.address));
    }
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

}  // namespace process_group

using namespace process_group;

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

}  // namespace dls::train

#endif  // DLS_HAVE_C10D
