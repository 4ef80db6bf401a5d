// Language-model training: the LmTask on the shared training loop.
#include "dls/train/tasks/lm_trainer.h"

#include <cmath>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "train/tasks/epoch_task_run.h"
#include "train/tasks/init_plans.h"
#include "train/tasks/lm_task.h"

namespace dls::train {

LmTrainResult train_lm(const settings::LmTrainSettings& settings, checkpoint::OpenedCheckpoints opened) {
  auto started =
      start_epoch_task<LmTask>(settings, opened, "runs/lm", checkpoint::kLmCheckpointKind, checkpoint::read_lm_contents,
                               [&](LmTask& task, const checkpoint::CheckpointReader& parent) {
                                 return init_lm_from(parent, task.model(), settings.model.transformer().variant(),
                                                     task.data().vocabulary.words());
                               });
  auto& task = *started.task;
  LmTrainResult result;
  result.parameters = count_parameters(task.model()).parameters;
  result.vocab_size = task.data().vocabulary.size();
  result.run_dir = started.run.run.run_dir;
  if (settings.run.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }
  if (!started.resumed() && started.run.placement.dist.is_main()) {
    task.model().to(started.run.placement.device);
    result.initial_val_perplexity = task.validate().perplexity();
    spdlog::info("validation perplexity before training: {:.2f}", result.initial_val_perplexity);
  }
  const auto done = started.train(settings);
  result.sentences_per_s = done.examples_per_s;
  result.val_nll = task.val_nll();
  result.val_perplexity = std::exp(result.val_nll);
  result.val_word_perplexity = task.val_word_perplexity();
  result.take(done);
  return result;
}

std::string LmTrainResult::json(const std::string& precision) const {
  return run_result_json(*this, precision, [this](util::JsonWriter& json) {
    json.field("sentences_per_s", sentences_per_s)
        .field("initial_val_perplexity", initial_val_perplexity)
        .field("val_loss", val_nll)
        .field("val_perplexity", val_perplexity)
        .field("val_word_perplexity", val_word_perplexity)
        .field("vocab_size", vocab_size);
  });
}

}  // namespace dls::train
