// Where a run's weights come from, for averaging several runs (checkpoint_eval average RUN N
// --with RUN2 ...: a model soup). A run fine-tuned with --init-from records the checkpoint it
// read in its config.toml; the runs that share one started from the same weights, so their
// weights still line up and their mean is a model (Wortsman et al., 2022). Two runs trained
// from scratch never line up -- the same unit sits at another index in each -- and their mean
// is none.
#pragma once

#include <string>
#include <vector>

namespace dls::checkpoint {

// The origins of `checkpoint_or_run`'s weights, newest first: its run, then what that run's
// --init-from read (config.toml's init-from), then what that one's read, and so on, each a
// run directory resolved -- or the file itself for a checkpoint that stands alone outside a run
// (an import's, a --output average's). Ends at a run without config.toml or without
// init-from (trained from scratch), and at a loop.
std::vector<std::string> run_lineage(const std::string& checkpoint_or_run);

// The first origin of `a` that `b` shares (both run_lineage()s); "" when they share none.
std::string shared_origin(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace dls::checkpoint
