// Where a program runs: the one place that turns --device into a torch::Device, for the
// trainers (one process or a torchrun rank), checkpoint_eval and the benchmark alike.
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

namespace dls::util {

// The GPUs this process can use: 0 when LibTorch was built without CUDA or none is visible
// (CUDA_VISIBLE_DEVICES narrows what it sees).
int visible_gpus();
// visible_gpus() where --device `name` needs the count, 0 for cpu without asking CUDA: a CPU
// run never starts the driver, which maps gigabytes of address space (under `ulimit -v` its
// start fails, and LibTorch prints a warning line into the program's output).
int visible_gpus_for(const std::string& name);

// What --device accepts.
inline const std::vector<std::string> kDeviceNames{"cpu", "cuda", "auto"};

// The device for --device `name` on a machine where `gpus` GPUs are visible, for the
// process of local rank `local_rank` (torchrun's LOCAL_RANK; 0 for a lone process):
//   cpu  -> cpu
//   cuda -> cuda:<local_rank mod gpus>, so that torchrun's one process per GPU puts each
//           rank on its own (a lone process: cuda:0); refused when no GPU is visible
//   auto -> as cuda when a GPU is visible, else cpu
// Throws std::invalid_argument with one line for an unknown name, cuda without a GPU, or a
// negative local rank. Logs a warning when more local ranks than GPUs share them.
torch::Device choose_device(const std::string& name, int gpus, int local_rank = 0);

// choose_device for one process (local rank 0) and the GPUs it can see: checkpoint_eval and
// the benchmark. The trainers choose through train::place_training, which knows the rank.
torch::Device select_device(const std::string& name);

}  // namespace dls::util
