// checkpoint_eval's flags for how translations are decoded: greedy by default, --beam with its
// penalties and n-best lists, --sample, or DLStudio's one-shot decoding, declared together
// (report::run_eval checks which go together).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/eval/decoding.h"
#include "dls/report/eval_jobs.h"
#include "cli_overrides.h"

namespace dls::apps {

// Into `decode` (its penalties and n-best) and `flags`, in `group`.
inline void add_decode_flags(CLI::App& app, eval::DecodeOptions& decode, report::DecodeChoice& flags,
                             const std::string& group) {
  app.add_option("--beam", flags.beam, "beam search with K beams (default: greedy)")
      ->group(group)
      ->check(CLI::Range(1, 64));
  app.add_option("--length-penalty", decode.length_penalty, "beam search: GNMT length penalty alpha (0: none)")
      ->check(in_range(0, 10))
      ->group(group);
  app.add_option("--coverage-penalty", decode.coverage_penalty,
                 "beam search: GNMT coverage penalty beta, the finished beams ranked with beta * sum over source words "
                 "of log(min(attention received, 1)) (0: none)")
      ->check(in_range(0, 10))
      ->group(group);
  app.add_option("--n-best", decode.n_best,
                 "with --beam K: the N best translations of each sentence (N <= K), a line 'sentence ||| translation "
                 "||| log p' each, sentences from 0 (JSON: \"n_best\")")
      ->check(CLI::Range(1, 64))
      ->group(group);
  app.add_flag("--sample", flags.sample,
               "draw each word from the model's distribution (back-translation) as --temperature, --top-k and --top-p "
               "say, with --seed")
      ->group(group);
  app.add_flag("--dlstudio-decode", flags.dlstudio_decode, "DLStudio's one-shot decoding, for comparison")
      ->group(group);
}

}  // namespace dls::apps
