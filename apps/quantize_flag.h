// --quantize of checkpoint_eval and translate_server: a translation model's linear layers on
// int8 weights on the CPU (dls/layers/int8_linear.h), for the whole process.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <torch/types.h>

#include "dls/layers/int8_linear.h"

namespace dls::apps {

inline CLI::Option* add_quantize_flag(CLI::App& app, std::string& quantize, const std::string& group) {
  return app
      .add_option("--quantize", quantize,
                  "none or int8: a transformer's linear layers on int8 weights, one scale per output row, on the CPU "
                  "(the checkpoint stays fp32)")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::IsMember({"none", "int8"}));
}

// Switches int8 linear layers on, or says in one line why they cannot be: `kind` is the
// checkpoint's, `autocast` whether --precision asked for bf16 or fp16.
inline void apply_quantize(const std::string& quantize, const std::string& kind, const torch::Device& device,
                           bool autocast) {
  if (quantize == "none") return;
  const std::string flag = "--quantize " + quantize + ": ";
  if (kind != "seq2seq") throw std::runtime_error(flag + "for translation models, not a " + kind + " checkpoint");
  if (!device.is_cpu()) throw std::runtime_error(flag + "on the CPU, not " + device.str());
  if (autocast) throw std::runtime_error(flag + "not with --precision bf16 or fp16: choose one");
  try {
    set_int8_linear_enabled(true);
  } catch (const std::exception& error) {
    throw std::runtime_error(flag + error.what());
  }
  spdlog::debug(
      "linear layers on int8 weights, one scale per output row, made on first use (one row: the {} kernel; "
      "several: onednn)",
      int8_gemv_kernel());
}

}  // namespace dls::apps
