// checkpoint_eval's flags for translating with a seq2seq checkpoint: --translate,
// --interactive, --input (with --output, shared with --average), --raw, --ensemble,
// --alignments, --attention-maps.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "dls/report/sentence_translation.h"

namespace dls::apps {

// Into `request` (group "Seq2seq checkpoints"); --attention-maps, which ViT runs use too,
// goes into `attention_maps`.
inline void add_translate_flags(CLI::App& app, report::TranslateRequest& request, std::string& attention_maps) {
  const std::string group = "Seq2seq checkpoints";
  app.add_option(
         "--translate", request.sentences,
         "translate this sentence, in the run's source language (repeatable), with RUN's best.pt, else its newest "
         "checkpoint")
      ->group(group);
  app.add_flag("--interactive", request.interactive, "translate sentences read from standard input, one per line")
      ->group(group);
  app.add_option("--input", request.input_file,
                 "translate every line of FILE (- for standard input; a pipe or FIFO too, read once): exactly one "
                 "output line per input line (empty for a blank or untranslatable one, reported with its line "
                 "number; blank lines are not errors), in batches")
      ->group(group);
  app.add_flag("--raw", request.raw,
               "translations as the model writes and BLEU scores them (lowercase words), not capitalised and "
               "punctuated")
      ->group(group);
  app.add_option("--ensemble", request.translator.ensemble,
                 "decode with these checkpoints too (runs or files, same vocabularies and L), their "
                 "log-probabilities averaged at each step with RUN's")
      ->group(group);
  app.add_flag("--alignments", request.alignments,
               "each translation's word alignment from the last layer's cross-attention, 'source-target' pairs "
               "from 0 after ' ||| ' (JSON: \"alignment\")")
      ->group(group);
  app.add_option("--attention-maps", attention_maps,
                 "seq2seq: attention heat maps of the first --translate sentence; "
                 "ViT: class-token attention over the patches; PNGs written to DIR");
}

}  // namespace dls::apps
