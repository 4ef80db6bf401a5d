// --quantize of checkpoint_eval and translate_server: a translation model's linear layers on
// int8 weights on the CPU (dls/layers/int8_linear.h), for the whole process.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

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

}  // namespace dls::apps
