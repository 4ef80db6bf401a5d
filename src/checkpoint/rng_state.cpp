#include "dls/checkpoint/rng_state.h"

#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

namespace dls::checkpoint {

torch::Tensor cpu_generator_state() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void restore_cpu_generator_state(const torch::Tensor& state) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace dls::checkpoint
