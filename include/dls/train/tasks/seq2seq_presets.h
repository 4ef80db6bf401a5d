// The starting points of a seq2seq training run: DLStudio's example script, and a small
// configuration that trains usefully on a 2-core CPU. Each is a file, data/presets/seq2seq/
// NAME.toml (settings/builtin_presets.h), which says what it sets and why.
#pragma once

#include <string>
#include <vector>

#include "dls/settings/seq2seq_settings.h"
#include "dls/models/seq2seq.h"  // Variant

namespace dls::train {

// "dlstudio": DLStudio's example script -- FG (or PreLN), dlstudio layout, M = 256,
//   4 encoders, 4 decoders, 4 heads, L = 10, batch 50, 40 epochs; FG: Adam(0.9, 0.98, 1e-6)
//   with the warm-up schedule (4000 steps); PreLN (dlstudio.PreLN.toml): plain Adam at 1e-5.
// "cpu": a small standard transformer that learns in minutes on 2 cores (see README).
// Throws std::invalid_argument for an unknown name.
settings::Seq2SeqTrainSettings seq2seq_preset(const std::string& name, Variant variant);
std::vector<std::string> seq2seq_preset_names();

// The preset of a run that names none, and why, for the log.
struct PresetChoice {
  std::string name;
  std::string reason;
};
// By the device --device names ("cpu", "cuda", "auto": cuda when a GPU is visible):
// "cpu" on a CPU, where DLStudio's example (a 269 M-parameter model on the Tatoeba corpus,
// 40 epochs) would take days; "dlstudio" on a GPU, where the lectures ran it.
PresetChoice default_seq2seq_preset(const std::string& device);

// A new run's settings: the preset `name`, or, when `name` is empty, the default for `device`
// (which `name` then becomes), preset_note saying which and why.
settings::Seq2SeqTrainSettings new_run_preset(std::string& name, Variant variant, const std::string& device);

}  // namespace dls::train
