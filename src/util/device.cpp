#include "dls/util/device.h"

#include <stdexcept>

#include <spdlog/spdlog.h>
#include <torch/cuda.h>

namespace dls::util {

int visible_gpus() { return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0; }

int visible_gpus_for(const std::string& name) { return name == "cpu" ? 0 : visible_gpus(); }

torch::Device choose_device(const std::string& name, int gpus, int local_rank) {
  if (name != "cpu" && name != "cuda" && name != "auto") {
    throw std::invalid_argument("--device: unknown device '" + name + "' (expected cpu, cuda or auto)");
  }
  if (local_rank < 0) throw std::invalid_argument("--device: negative local rank " + std::to_string(local_rank));
  if (name == "cpu" || (name == "auto" && gpus < 1)) return torch::kCPU;
  if (gpus < 1) throw std::invalid_argument("--device cuda: this LibTorch has no CUDA or no GPU is visible");
  const int index = local_rank % gpus;
  if (local_rank >= gpus) {
    spdlog::warn(
        "local rank {} shares cuda:{} with another rank ({} GPU(s) visible): NCCL refuses that, Gloo runs slowly",
        local_rank, index, gpus);
  }
  return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)};
}

torch::Device select_device(const std::string& name) { return choose_device(name, visible_gpus_for(name)); }

}  // namespace dls::util
