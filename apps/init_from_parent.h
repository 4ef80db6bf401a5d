// The trainers' --init-from: a new run that starts from another run's weights builds that
// run's model, as OpenNMT's -train_from, fairseq's --restore-file and timm's fine-tuning keep
// the architecture, so that fine-tuning names the parent alone (apps/seq2seq_train.cpp,
// vit_train.cpp, lm_train.cpp).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/cli/config_file.h"
#include "dls/cli/overrides.h"

namespace dls::apps {

// The run a new run's --init-from names (as `overrides`, the flags given, set it): its newest
// checkpoint's path and, read by `read(reader)`, its settings, when it is of `kind`. Without
// --init-from, or of another kind (which the weights' step refuses in one line,
// train/tasks/init_plans.h), nothing. The checkpoint stays open in `opened` for the trainer.
template <typename Settings, typename Read>
std::optional<std::pair<std::string, Settings>> init_from_parent(const cli::Overrides<Settings>& overrides,
                                                                 const std::string& kind, Read read,
                                                                 checkpoint::OpenedCheckpoint& opened) {
  Settings flags;
  cli::apply_overrides(overrides, flags);
  if (flags.run.init_from.empty()) return std::nullopt;
  const auto& reader = opened.open(flags.run.init_from, "");
  if (reader.kind() != kind) return std::nullopt;
  return std::make_pair(reader.path(), read(reader));
}

// --init-vocab typed on the command line chooses an --init-from run's vocabularies: refused
// without --init-from and on --resume (a config file lists it for every run).
template <typename Settings>
void check_init_vocab_flag(const CLI::App& app, const Settings& flags, bool resuming) {
  if (!cli::typed_on_command_line(app, "--init-vocab")) return;
  if (resuming) throw std::runtime_error("--init-vocab: a resumed run's vocabularies are its checkpoint's");
  if (flags.run.init_from.empty())
    throw std::runtime_error("--init-vocab: chooses the vocabularies of a run started with --init-from");
}

}  // namespace dls::apps
