// seq2seq_train's --preset and --variant on --resume: the flags that choose a new run's
// starting settings (apps/seq2seq_train.cpp).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/cli/config_file.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/util/file_io.h"
#include "dls/util/toml_subset.h"

namespace dls::apps {

// The preset a resumed run began with, from its config.toml ("" without one): what a
// branch's config.toml records, so that it reads back (a checkpoint does not keep it).
inline std::string preset_of_run(const std::string& resume) {
  const auto run_config = std::filesystem::path(checkpoint::run_dir_of(resume)) / "config.toml";
  std::error_code error;
  if (!std::filesystem::is_regular_file(run_config, error)) return "";
  try {
    for (const auto& item : util::parse_toml_subset(util::read_file(run_config.string()), run_config.string())) {
      if (item.name == "preset" && item.values.size() == 1) return item.values[0];
    }
  } catch (const std::exception&) {  // a damaged file: the branch's config.toml goes without
  }
  return "";
}

// --preset and --variant choose a new run's starting settings and are not settings of the
// run, so the check of fixed settings on --resume cannot compare them with the checkpoint:
// --preset on the command line is refused; a config file's preset must be the one the run
// was started with (its config.toml says, when it has one); a config file's variant must be
// the checkpoint's.
inline void check_start_flags_on_resume(const CLI::App& app, const std::string& resume, const std::string& preset,
                                        const std::string& variant, const settings::Seq2SeqTrainSettings& resumed) {
  if (cli::typed_on_command_line(app, "--preset"))
    throw std::runtime_error(
        "--preset: fixed by the checkpoint when resuming (its settings are the run's; leave --preset out)");
  if (app.count("--preset") > 0) {
    const auto began_with = preset_of_run(resume);
    if (!began_with.empty() && began_with != preset) {
      const auto run_config = std::filesystem::path(checkpoint::run_dir_of(resume)) / "config.toml";
      throw std::runtime_error(cli::config_location(app, "preset") + ": preset=" + preset +
                               ", but the run was started with " + began_with + " (" + run_config.string() + ")");
    }
  }
  if (app.count("--variant") > 0 && resumed.architecture == Architecture::kTransformer) {
    const auto theirs = to_string(resumed.model.transformer().variant());
    if (variant != theirs)
      throw std::runtime_error((cli::from_config_file(app, "--variant") ? cli::config_label(app) + ": " : "") +
                               "variant=" + variant + ", but the checkpoint has " + theirs +
                               " (fixed by the checkpoint when resuming)");
  }
}

// --variant chooses a transformer's (FG or PreLN): an RNN run refuses it from the command
// line, and from a file unless it holds the default that every config.toml records.
inline void check_variant_for_architecture(const CLI::App& app, const std::string& variant, Architecture architecture) {
  if (architecture != Architecture::kRnnAttention || app.count("--variant") == 0) return;
  if (cli::from_config_file(app, "--variant") && variant == "FG") return;
  throw std::runtime_error("--variant " + variant +
                           ": a transformer's (TransformerFG or TransformerPreLN); this run trains an RNN "
                           "(--architecture rnn-attention)");
}

}  // namespace dls::apps
