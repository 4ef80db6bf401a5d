// What every trainer shares (private to src/train/tasks): start or resume the run, read what
// the resumed checkpoint holds, build the task inside the run's guard (a refused --init-from,
// or ranks started unlike, leave no run directory behind), then train it on the loop from where the checkpoint left
// off. Each trainer adds only its results.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/train/parallel/rank_agreement.h"
#include "dls/train/run/run_start.h"
#include "dls/train/training_loop.h"
#include "train/tasks/init_plans.h"

namespace dls::train {

// Task: Seq2SeqTask, LmTask or ViTTask (constructed from the settings, the resumed contents or
// nullptr, the resumed file, the device and the batch-chunk workers); Contents holds the
// resumed RunState.
template <typename Task, typename Contents>
struct EpochTaskRun {
  StartedRun run;
  Contents contents;  // the resumed checkpoint's; default for a fresh run
  std::unique_ptr<Task> task;

  bool resumed() const { return run.resume != nullptr; }

  // The loop, from the resumed progress or the start; the run's checkpoint goes to it.
  template <typename Settings>
  LoopResult train(const Settings& settings) {
    const auto loop = run.loop_options(settings.epochs, settings.optimizer, settings.selection);
    const auto state = run.resume ? contents.state : RunState{};
    return run_training(*task, state, loop, std::move(run.resume));
  }
};

// Every rank builds the same task from the same data, so the start-up report and its warnings
// (the corpus, the vocabularies, --init-from's) are the first rank's to give, once: while one
// of these lives, the other ranks log errors alone.
class QuietOnOtherRanks {
 public:
  explicit QuietOnOtherRanks(bool main_rank) : before_(spdlog::get_level()), quiet_(!main_rank) {
    if (quiet_) spdlog::set_level(spdlog::level::err);
  }
  ~QuietOnOtherRanks() {
    if (quiet_) spdlog::set_level(before_);
  }
  QuietOnOtherRanks(const QuietOnOtherRanks&) = delete;
  QuietOnOtherRanks& operator=(const QuietOnOtherRanks&) = delete;

 private:
  spdlog::level::level_enum before_;
  bool quiet_;
};

// read_contents(reader) -> Contents; init_from(Task&, parent) reads the --init-from
// checkpoint `parent` into a fresh task and returns its InitReport;
// task_settings(const StartedRun&) -> Settings: what the task is built with, once the run
// knows its device (the seq2seq task's static shapes under CUDA graphs); the settings as given
// when the task needs nothing of the kind.
template <typename Task, typename Contents, typename Settings, typename InitFrom, typename TaskSettings>
EpochTaskRun<Task, Contents> start_epoch_task(const Settings& settings, checkpoint::OpenedCheckpoints& opened,
                                              const std::string& default_run_dir, const std::string& checkpoint_kind,
                                              Contents (*read_contents)(const checkpoint::CheckpointReader&),
                                              InitFrom&& init_from, TaskSettings&& task_settings) {
  EpochTaskRun<Task, Contents> out{start_run(settings.run, default_run_dir, checkpoint_kind, &opened.resume),
                                   Contents{}, nullptr};
  auto& run = out.run;
  if (run.resume) {
    out.contents = read_contents(*run.resume);
    // A run directory's best.pt is where it stopped when no numbered checkpoint is as new.
    const bool best = std::filesystem::path(run.resume->path()).filename() == "best.pt" &&
                      std::filesystem::is_directory(run.run.resume);
    spdlog::info("resuming from {} ({} epochs and {} steps done, {} steps in all){}", run.resume->path(),
                 out.contents.state.completed_epochs, out.contents.state.step_in_epoch, out.contents.state.global_step,
                 best ? ": the run's newest state, saved in an epoch without a numbered checkpoint" : "");
  }
  const Settings built_with = task_settings(static_cast<const StartedRun&>(run));
  std::string init_file;  // the checkpoint --init-from read
  out.task = run.build_task([&] {
    std::optional<QuietOnOtherRanks> quiet(run.placement.dist.is_main());
    // --init-from's checkpoint, read once (the whole file; the one the program opened for the
    // parent's settings) for the vocabularies the task takes and then for its weights, so that
    // all are of one file even while its run writes newer ones; let go once the weights are copied.
    std::unique_ptr<checkpoint::CheckpointReader> parent;
    if (!run.resume && !settings.run.init_from.empty()) parent = opened.init_from.take(settings.run.init_from, "");
    auto built =
        std::make_unique<Task>(built_with, run.resume ? &out.contents : nullptr, run.resume ? run.resume->path() : "",
                               parent.get(), run.placement.device, run.placement.workers);
    built->schedule().check();
    if (parent) {
      const InitReport report = init_from(*built, *parent);
      log_init_report(report);
      init_file = report.source;
    }
    quiet.reset();
    // Before rank 0 writes in the run directory and before the first broadcast of weights;
    // a refusal here removes the directory this start created, as any failed build does.
    const std::int64_t resumed_step = run.resume ? out.contents.state.global_step : 0;
    check_ranks_agree(run.placement.dist, [&] {
      return rank_description(run.run.config_toml, built->model(), built->steps_per_epoch(),
                              built->training_data_digest(), resumed_step);
    });
    return built;
  });
  // config.toml names the file read, not the run directory named: a replay from it starts
  // from the same weights after that run trained on -- at its new place when it was this
  // very run, moved aside (fine-tuning in place with --overwrite). Both paths resolved
  // before the move, through links, ".", and a trailing "/".
  const InitFileBeforeMove before{init_file, run.run.run_dir};
  const auto aside = run.claim_directory();
  if (!init_file.empty()) {
    run.run.config_toml = with_init_from_file(run.run.config_toml, before.after_move_to(aside));
  }
  return out;
}

template <typename Task, typename Contents, typename Settings, typename InitFrom>
EpochTaskRun<Task, Contents> start_epoch_task(const Settings& settings, checkpoint::OpenedCheckpoints& opened,
                                              const std::string& default_run_dir, const std::string& checkpoint_kind,
                                              Contents (*read_contents)(const checkpoint::CheckpointReader&),
                                              InitFrom&& init_from) {
  return start_epoch_task<Task>(settings, opened, default_run_dir, checkpoint_kind, read_contents,
                                std::forward<InitFrom>(init_from), [&](const StartedRun&) { return settings; });
}

}  // namespace dls::train
