// checkpoint_eval's --precision (the trainers' is a run setting: run_flags.h).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace dls::apps {

inline CLI::Option* add_precision_flag(CLI::App& app, std::string& precision, const std::string& group) {
  return app
      .add_option("--precision", precision,
                  "fp32, bf16 (autocast; fast on CPUs with AVX512-BF16/AMX, and CUDA) or fp16 (CUDA only, "
                  "with loss scaling); weights, optimizer state and checkpoints stay fp32")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
}

}  // namespace dls::apps
