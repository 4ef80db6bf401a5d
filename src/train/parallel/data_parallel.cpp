#include "dls/train/parallel/data_parallel.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "dls/util/thread_policy.h"
#include "dls/util/device.h"

namespace dls::train {

namespace {

// Joins the process group of the environment `lookup` reads for training on `device`. One
// process: a context of world size 1. Ranks other than 0 log only warnings and errors,
// prefixed "[rank R]". Throws std::runtime_error (one line) for a bad environment, an
// unknown backend, NCCL without CUDA or without NCCL in this LibTorch, or a group that cannot
// be joined within the timeout.
DistributedContext join_process_group(const settings::ParallelSettings& options, const c10::Device& device,
                                      const EnvLookup& lookup) {
  if (options.backend != "auto" && options.backend != "gloo" && options.backend != "nccl") {
    throw std::runtime_error("--dist-backend: '" + options.backend + "' is not gloo, nccl or auto");
  }
  if (!(options.timeout_s > 0)) throw std::runtime_error("--dist-timeout must be positive");
  const bool cuda = device.is_cuda();
  std::string backend = options.backend;
  if (backend == "auto") backend = cuda && DistributedContext::has_nccl() ? "nccl" : "gloo";
  if (backend == "nccl" && !cuda) throw std::runtime_error("--dist-backend nccl needs --device cuda");
  DistributedOptions dist;
  dist.backend = backend;
  dist.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(options.timeout_s * 1000));
  dist.device = device;
  auto context = DistributedContext::from_environment(dist, lookup);
  if (context.world_size() > 1) {
    if (!context.is_main()) {
      spdlog::set_level(spdlog::level::warn);
      spdlog::set_pattern("[rank " + std::to_string(context.rank()) + "] %l %v");
    }
    spdlog::info("process group: rank {} of {}, backend {}, timeout {:.0f} s", context.rank(), context.world_size(),
                 context.backend(), options.timeout_s);
  }
  return context;
}

}  // namespace

torch::Device training_device(const std::string& device, const EnvLookup& lookup, int gpus) {
  const auto env = read_distributed_environment(lookup);
  return util::choose_device(device, gpus < 0 ? util::visible_gpus_for(device) : gpus, env ? env->local_rank : 0);
}

TrainingPlacement place_training(const std::string& device, util::Precision precision, int workers,
                                 const settings::ParallelSettings& parallel, const EnvLookup& lookup, int gpus) {
  TrainingPlacement placement;
  placement.device = training_device(device, lookup, gpus);
  placement.workers = util::batch_chunk_workers(placement.device, workers);
  util::check_precision(precision, placement.device);
  placement.dist = join_process_group(parallel, placement.device, lookup);
  return placement;
}

}  // namespace dls::train
