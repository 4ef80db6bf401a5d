// checkpoint_eval's flags for language-model runs (kind "lm"): --generate with its sampling
// settings (--seed, --test, --data, --limit are shared with seq2seq runs).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/eval/lm_checkpoint_report.h"

namespace dls::apps {

// --generate, --temperature, --top-k, --top-p, --count into `request` (group "Language-model checkpoints").
inline void add_lm_eval_flags(CLI::App& app, eval::LmEvalRequest& request) {
  const std::string group = "Language-model checkpoints";
  app.add_option(
         "--generate", request.prompts,
         "continue this prompt (repeatable; \"\" for none) with RUN's best.pt, else its newest checkpoint, using "
         "cached keys/values")
      ->group(group);
  auto* generate = app.get_option("--generate");
  app.add_option("--temperature", request.sampling.temperature, "--generate: divides the logits (0: greedy)")
      ->capture_default_str()
      ->check(in_range(0, 100))
      ->needs(generate)
      ->group(group);
  app.add_option("--top-k", request.sampling.top_k, "--generate: sample among the K most probable words (0: all)")
      ->capture_default_str()
      ->check(in_range(0, 1000000000))
      ->needs(generate)
      ->group(group);
  app.add_option("--top-p", request.sampling.top_p,
                 "--generate: sample among the fewest most probable words whose probability reaches P (1: all)")
      ->capture_default_str()
      ->check(in_range(1e-9, 1))
      ->needs(generate)
      ->group(group);
  app.add_option("--count", request.samples, "--generate: texts per prompt (sample i draws with --seed + i)")
      ->capture_default_str()
      ->check(in_range(1, 10000))
      ->needs(generate)
      ->group(group);
}

}  // namespace dls::apps
