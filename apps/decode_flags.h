// checkpoint_eval's flags for how translations are decoded: greedy by default, --beam with its
// penalties and n-best lists, --sample, or DLStudio's one-shot decoding; declared and checked
// together.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/eval/decoding.h"
#include "cli_overrides.h"

namespace dls::apps {

struct DecodeFlags {
  std::int64_t beam = 0;  // 0: not asked (greedy unless --sample)
  bool sample = false;
  bool dlstudio_decode = false;
};

// Into `decode` (its penalties and n-best) and `flags`, in `group`.
inline void add_decode_flags(CLI::App& app, eval::DecodeOptions& decode, DecodeFlags& flags, const std::string& group) {
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

// Sets decode.method (and the beam) from the flags, or says in one line which do not go together.
inline void apply_decode_flags(const CLI::App& app, const DecodeFlags& flags, eval::DecodeOptions& decode) {
  if (flags.sample + (flags.beam > 0) + flags.dlstudio_decode > 1)
    throw std::runtime_error("--sample, --beam and --dlstudio-decode: choose one way to decode");
  for (const auto* beam_only : {"--length-penalty", "--coverage-penalty"}) {
    if (app.count(beam_only) > 0 && flags.beam == 0)
      throw std::runtime_error(std::string(beam_only) + ": with --beam K");
  }
  if (decode.n_best > 1 && flags.beam < decode.n_best) {
    throw std::runtime_error("--n-best " + std::to_string(decode.n_best) +
                             ": needs --beam K with K >= N (beam search keeps K hypotheses)");
  }
  decode.method = flags.dlstudio_decode ? eval::DecodeMethod::kDLStudioOneShot
                  : flags.beam > 0      ? eval::DecodeMethod::kBeam
                  : flags.sample        ? eval::DecodeMethod::kSample
                                        : eval::DecodeMethod::kGreedy;
  if (flags.beam > 0) decode.beam_size = flags.beam;
}

}  // namespace dls::apps
