// --precision, taken by both training programs and checkpoint_eval.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

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

// The precision of an invocation: `given` when --precision was given (on the command line
// or in --config) or nothing is resumed; for a resume without it, the run's own, from the
// config.toml that its first invocation wrote into the run directory (`resume` is that
// directory or a checkpoint in it), so a resumed bf16 run stays bf16.
inline std::string run_precision(const CLI::Option& flag, const std::string& given, const std::string& resume) {
  if (resume.empty() || flag.count() > 0) return given;
  namespace fs = std::filesystem;
  fs::path at = resume;  // the run directory, or a checkpoint in it or in its checkpoints/
  for (int up = 0; up < 3 && !at.empty(); ++up, at = at.parent_path()) {
    const fs::path config = at / "config.toml";
    if (!fs::is_regular_file(config)) continue;
    std::ifstream in(config);
    for (const auto& item : CLI::ConfigTOML().from_config(in)) {
      if (item.name == "precision" && item.inputs.size() == 1 && item.inputs[0] != given) {
        spdlog::info("precision {}, the run's (from {}; --precision overrides)", item.inputs[0], config.string());
        return item.inputs[0];
      }
    }
    break;
  }
  return given;
}

}  // namespace dls::apps
