// seq2seq_train's corpus flags where what they mean depends on which were given: a
// --train-src run drops the default corpus that the preset put in --data's place, and
// refuses --data and TSV columns beside parallel files. The rest of the corpus's checks are
// the settings' own (Seq2SeqTrainSettings::check_corpus).
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/cli/config_file.h"
#include "dls/settings/seq2seq_settings.h"

namespace dls::apps {

// The corpus flags' checks, one line each, after the flags are applied.
inline void check_corpus_flags(const CLI::App& app, settings::Seq2SeqTrainSettings& setup) {
  auto& data = setup.data;
  if (!data.train_src.empty()) {
    if (app.count("--data") > 0 && !data.data_path.empty())
      throw std::runtime_error("--data and --train-src: give one corpus, a TSV/archive file or parallel files");
    data.data_path.clear();
    for (const char* flag : {"--src-column", "--tgt-column"}) {
      if (cli::typed_on_command_line(app, flag))
        throw std::runtime_error(std::string(flag) + ": only for a TSV corpus (--data), not parallel files");
    }
  }
  setup.check_corpus();
}

}  // namespace dls::apps
