// checkpoint_eval's flags for language-model runs (kind "lm"): --generate with its sampling
// settings, which seq2seq runs' --sample shares (--seed, --test, --data, --limit are shared
// with seq2seq runs too).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/report/lm_checkpoint_report.h"

namespace dls::apps {

inline const std::string kLmGroup = "Language-model checkpoints";

// --temperature, --top-k, --top-p: how words are drawn (--generate, --sample).
inline void add_sampling_flags(CLI::App& app, eval::SamplingOptions& sampling) {
  app.add_option("--temperature", sampling.temperature, "--generate, --sample: divides the logits (0: greedy)")
      ->capture_default_str()
      ->check(in_range(0, 100))
      ->group(kLmGroup);
  app.add_option("--top-k", sampling.top_k, "--generate, --sample: sample among the K most probable words (0: all)")
      ->capture_default_str()
      ->check(in_range(0, 1000000000))
      ->group(kLmGroup);
  app.add_option("--top-p", sampling.top_p,
                 "--generate, --sample: sample among the fewest most probable words whose probability reaches P (1: "
                 "all)")
      ->capture_default_str()
      ->check(in_range(1e-9, 1))
      ->group(kLmGroup);
}

// The sampling flags, --tokens and --count; returns the last two, which the one-command form
// ties to --generate.
inline std::vector<CLI::Option*> add_generation_flags(CLI::App& app, report::LmEvalRequest& request) {
  add_sampling_flags(app, request.sampling);
  return {app.add_option("--tokens", request.tokens,
                         "--generate on a running-text run (--block-size): tokens (characters, words or pieces) to "
                         "generate; past the model's block it reads the latest block")
              ->capture_default_str()
              ->check(in_range(1, 1000000))
              ->group(kLmGroup),
          app.add_option("--count", request.samples, "--generate: texts per prompt (sample i draws with --seed + i)")
              ->capture_default_str()
              ->check(in_range(1, 10000))
              ->group(kLmGroup)};
}

// --generate and the generation flags into `request`; checkpoint_eval refuses the sampling
// flags without --generate or --sample.
inline void add_lm_eval_flags(CLI::App& app, report::LmEvalRequest& request) {
  auto* generate = app.add_option("--generate", request.prompts,
                                  "continue this prompt (repeatable; \"\" for none) with RUN's best.pt, else its "
                                  "newest checkpoint, using cached keys/values")
                       ->group(kLmGroup);
  for (auto* option : add_generation_flags(app, request)) option->needs(generate);
}

}  // namespace dls::apps
