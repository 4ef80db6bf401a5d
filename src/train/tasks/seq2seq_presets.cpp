#include "dls/train/tasks/seq2seq_presets.h"

#include "dls/data/vocabulary.h"
#include "dls/settings/builtin_presets.h"
#include "dls/util/device.h"

namespace dls::train {

settings::Seq2SeqTrainSettings seq2seq_preset(const std::string& name, Variant variant) {
  settings::Seq2SeqTrainSettings preset;
  preset.model.pad_index(data::Vocabulary::kPad);
  preset.model.transformer().variant(variant);
  settings::read_builtin_preset("seq2seq", name, preset);
  settings::read_builtin_preset_variant("seq2seq", name, to_string(variant), preset);
  return preset;
}

std::vector<std::string> seq2seq_preset_names() { return settings::builtin_preset_names("seq2seq"); }

PresetChoice default_seq2seq_preset(const std::string& device) {
  if (device == "cpu" || (device == "auto" && util::visible_gpus_for(device) == 0)) {
    return {"cpu",
            "the default on a CPU (--preset dlstudio: DLStudio's example, whose 40 epochs of a model of "
            "hundreds of millions of parameters take days on a CPU)"};
  }
  return {"dlstudio", "the default on a GPU: DLStudio's example (--preset cpu: the small recipe)"};
}

settings::Seq2SeqTrainSettings new_run_preset(std::string& name, Variant variant, const std::string& device) {
  std::string why = "(--preset)";
  if (name.empty()) {
    const auto chosen = default_seq2seq_preset(device);
    name = chosen.name;
    why = ": " + chosen.reason;
  }
  auto settings = seq2seq_preset(name, variant);
  settings.preset_note = "preset " + name + (why.front() == '(' ? " " : "") + why;
  return settings;
}

}  // namespace dls::train
