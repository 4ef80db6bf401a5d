// The tests that resume a checkpoint another version of the program wrote part-way through a
// run: the same run trained straight by this build, and resumed from the older checkpoint, to
// the same step.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "util/temp_files.h"

namespace dls::test {

struct StraightAndResumed {
  checkpoint::RunState straight;        // this build's run, saved at settings.run.max_iters
  checkpoint::RunState resumed;         // the older checkpoint resumed to the same step
  std::int64_t resumed_iterations = 0;  // the steps the resumed run reports
};

// `settings` trained by `train` (a trainer: its result's checkpoints and iterations) into their
// run.run_dir up to run.max_iters, then from a fresh run folder named after `name` that holds
// only `older`, resumed to the same step. Fails unless both stop at run.max_iters at the same
// place in the same epoch, having counted the same examples in it.
template <typename Settings, typename Train>
StraightAndResumed expect_resume_to_stand_where_straight_stands(Settings settings, const std::filesystem::path& older,
                                                                const std::string& name, Train train) {
  const auto last_state = [](const auto& result) {
    return checkpoint::RunState::from_settings(checkpoint::CheckpointReader(result.checkpoints.back()).settings());
  };
  StraightAndResumed out;
  out.straight = last_state(train(settings));
  const auto resumed = run_dir_holding(older, name);
  settings.run.run_dir = resumed.string();
  settings.run.resume = resumed.string();
  const auto continued = train(settings);
  out.resumed_iterations = continued.iterations;
  out.resumed = last_state(continued);
  const auto steps = settings.run.max_iters;
  EXPECT_EQ(out.straight.global_step, steps);
  EXPECT_EQ(out.resumed_iterations, steps);
  EXPECT_EQ(out.resumed.global_step, steps);
  EXPECT_EQ(out.resumed.completed_epochs, out.straight.completed_epochs);
  EXPECT_EQ(out.resumed.step_in_epoch, out.straight.step_in_epoch);
  EXPECT_EQ(out.resumed.steps_per_epoch, out.straight.steps_per_epoch);
  EXPECT_EQ(out.resumed.epoch_examples, out.straight.epoch_examples);
  return out;
}

}  // namespace dls::test
