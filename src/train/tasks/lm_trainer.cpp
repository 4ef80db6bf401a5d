// Language-model training: the LmTask on the shared training loop.
#include "dls/train/tasks/lm_trainer.h"

#include <cmath>
#include <memory>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "dls/train/run_start.h"
#include "dls/train/training_loop.h"
#include "train/tasks/init_plans.h"
#include "train/tasks/lm_task.h"

namespace dls::train {

LmTrainResult train_lm(const settings::LmTrainSettings& settings) {
  auto run = start_run(settings.run, "runs/lm", checkpoint::kLmCheckpointKind);
  checkpoint::LmCheckpointContents contents;
  if (run.resume) {
    contents = checkpoint::read_lm_contents(*run.resume);
    spdlog::info("resuming from {} ({} epochs and {} steps done)", run.resume->path(), contents.state.completed_epochs,
                 contents.state.step_in_epoch);
  }
  // --init-from inside the build: a refusal leaves no run directory behind.
  const auto task = run.build_task([&] {
    auto built =
        std::make_unique<LmTask>(settings, run.resume ? &contents : nullptr, run.resume ? run.resume->path() : "",
                                 run.placement.device, run.placement.workers);
    if (!run.resume && !settings.run.init_from.empty()) {
      log_init_report(init_lm_from(settings.run.init_from, built->model(), built->data().vocabulary.words()));
    }
    return built;
  });
  LmTrainResult result;
  result.parameters = count_parameters(task->model()).parameters;
  result.vocab_size = task->data().vocabulary.size();
  result.run_dir = run.run.run_dir;
  if (settings.run.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }
  if (!run.resume && run.placement.dist.is_main()) {
    task->model().to(run.placement.device);
    result.initial_val_perplexity = task->validate().perplexity();
    spdlog::info("validation perplexity before training: {:.2f}", result.initial_val_perplexity);
  }
  const auto loop = run.loop_options(settings.epochs, settings.optimizer, settings.selection);
  const auto state = run.resume ? LmTask::loop_state(contents.state) : LoopState{};
  const auto done = run_training(*task, state, loop, std::move(run.resume));
  result.sentences_per_s = done.examples_per_s;
  result.val_nll = task->val_nll();
  result.val_perplexity = std::exp(result.val_nll);
  result.val_word_perplexity = task->val_word_perplexity();
  result.take(done);
  return result;
}

std::string LmTrainResult::json(const std::string& precision) const {
  return run_result_json(*this, precision, [this](util::JsonWriter& json) {
    json.key("sentences_per_s")
        .value(sentences_per_s)
        .key("initial_val_perplexity")
        .value(initial_val_perplexity)
        .key("val_loss")
        .value(val_nll)
        .key("val_perplexity")
        .value(val_perplexity)
        .key("val_word_perplexity")
        .value(val_word_perplexity)
        .key("vocab_size")
        .value(vocab_size);
  });
}

}  // namespace dls::train
