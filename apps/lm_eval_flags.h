// checkpoint_eval's flags for language-model runs (kind "lm"): --generate with its sampling
// settings, which seq2seq runs' --sample shares (--seed, --test, --data, --limit are shared
// with seq2seq runs too).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/eval/lm_checkpoint_report.h"

namespace dls::apps {

// --generate, --temperature, --top-k, --top-p, --tokens, --count into `request` (group "Language-model
// checkpoints"); checkpoint_eval refuses the sampling flags without --generate or --sample.
inline void add_lm_eval_flags(CLI::App& app, eval::LmEvalRequest& request) {
  const std::string group = "Language-model checkpoints";
  app.add_option(
         "--generate", request.prompts,
         "continue this prompt (repeatable; \"\" for none) with RUN's best.pt, else its newest checkpoint, using "
         "cached keys/values")
      ->group(group);
  app.add_option("--temperature", request.sampling.temperature, "--generate, --sample: divides the logits (0: greedy)")
      ->capture_default_str()
      ->check(in_range(0, 100))
      ->group(group);
  app.add_option("--top-k", request.sampling.top_k,
                 "--generate, --sample: sample among the K most probable words (0: all)")
      ->capture_default_str()
      ->check(in_range(0, 1000000000))
      ->group(group);
  app.add_option("--top-p", request.sampling.top_p,
                 "--generate, --sample: sample among the fewest most probable words whose probability reaches P (1: "
                 "all)")
      ->capture_default_str()
      ->check(in_range(1e-9, 1))
      ->group(group);
  app.add_option("--tokens", request.tokens,
                 "--generate on a running-text run (--block-size): tokens (characters, words or pieces) to generate; "
                 "past the model's block it reads the latest block")
      ->capture_default_str()
      ->check(in_range(1, 1000000))
      ->needs(app.get_option("--generate"))
      ->group(group);
  app.add_option("--count", request.samples, "--generate: texts per prompt (sample i draws with --seed + i)")
      ->capture_default_str()
      ->check(in_range(1, 10000))
      ->needs(app.get_option("--generate"))
      ->group(group);
}

}  // namespace dls::apps
