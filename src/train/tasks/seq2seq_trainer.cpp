// seq2seq training: the Seq2SeqTask on the shared training loop.
#include "dls/train/tasks/seq2seq_trainer.h"

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/train/run/run_start.h"
#include "dls/train/step_plan.h"
#include "train/device_graph.h"
#include "train/tasks/epoch_task_run.h"
#include "train/tasks/init_plans.h"
#include "train/tasks/seq2seq_task.h"

namespace dls::train {

Seq2SeqCheckpointInfo resume_info(const std::string& dir_or_file) {
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(dir_or_file), checkpoint::kSeq2SeqKind);
  return checkpoint::read_seq2seq_info(reader);
}

bool seq2seq_loss_capturable(const settings::Seq2SeqTrainSettings& settings) {
  return settings.max_tokens == 0 && settings.architecture == Architecture::kTransformer;
}

Seq2SeqTrainResult train_seq2seq(const settings::Seq2SeqTrainSettings& settings, const std::string& dlstudio_vocab,
                                 checkpoint::OpenedCheckpoints opened) {
  auto started = start_epoch_task<Seq2SeqTask>(
      settings, opened, "runs/seq2seq", checkpoint::kSeq2SeqKind, checkpoint::read_seq2seq_info,
      [&](Seq2SeqTask& task, const checkpoint::CheckpointReader& parent) {
        if (task.translation_model().is_rnn()) {
          throw std::runtime_error("--init-from: reads a transformer's weights, not into an RNN");
        }
        return init_seq2seq_from(parent, task.model(), settings.model.transformer().variant(),
                                 task.data().english.words(), task.data().spanish.words());
      },
      [&](const StartedRun& run) {
        // A step replayed as CUDA graphs needs static-shape batches: they come with it (token
        // batches, sized by their sentences, cannot have them).
        auto effective = settings;
        const auto plan = plan_step(parse_cuda_graphs(settings.run.cuda_graphs), run.placement.device,
                                    DeviceGraph::available(), run.placement.dist.world_size(), settings.run.precision,
                                    settings.run.parallel.accum_steps, seq2seq_loss_capturable(settings));
        if (plan.captured) effective.static_shapes = true;
        return effective;
      });
  const auto& task = started.task;
  if (!dlstudio_vocab.empty()) task->log_dlstudio_counts(dlstudio_vocab);
  Seq2SeqTrainResult result;
  result.encoder_parameters = task->encoder_parameters();
  result.decoder_parameters = task->decoder_parameters();
  result.parameters = count_parameters(task->model()).parameters;
  result.run_dir = started.run.run.run_dir;
  result.val_loss = task->val_loss();
  result.val_bleu = task->val_bleu();
  if (settings.run.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }
  const auto done = started.train(settings);
  result.pairs_per_s = done.examples_per_s;
  result.val_loss = task->val_loss();
  result.val_bleu = task->val_bleu();
  if (const auto* validation = task->last_validation()) {
    result.val_sacrebleu = validation->sacrebleu.score;
    result.val_chrf = validation->chrf.score;
    result.sacrebleu_signature = validation->sacrebleu.signature;
    result.chrf_signature = validation->chrf.signature;
  }
  if (const auto* test = task->test_result()) {
    result.test = {task->data().test.source, test->hypotheses.size(), task->test_longer_pairs(), test->bleu.bleu,
                   test->sacrebleu.score,    test->chrf.score,        test->sacrebleu.signature, test->chrf.signature};
  }
  result.take(done);
  return result;
}

std::string Seq2SeqTrainResult::json(const std::string& precision) const {
  return run_result_json(*this, precision, [this](util::JsonWriter& json) {
    json.field("pairs_per_s", pairs_per_s)
        .field("val_loss", val_loss)
        .field("val_bleu", val_bleu)
        .key("val_sacrebleu")
        .begin_object()
        .field("score", val_sacrebleu)
        .field("signature", sacrebleu_signature)
        .end_object()
        .key("val_chrf")
        .begin_object()
        .field("score", val_chrf)
        .field("signature", chrf_signature)
        .end_object()
        .field("encoder_parameters", encoder_parameters)
        .field("decoder_parameters", decoder_parameters);
    json.key("test");
    if (!test) {
      json.null();
      return;
    }
    json.begin_object()
        .field("source", test->source)
        .field("pairs", test->pairs)
        .field("longer_pairs", test->longer)
        .field("bleu", test->bleu)
        .key("sacrebleu")
        .begin_object()
        .field("score", test->sacrebleu)
        .field("signature", test->sacrebleu_signature)
        .end_object()
        .key("chrf")
        .begin_object()
        .field("score", test->chrf)
        .field("signature", test->chrf_signature)
        .end_object()
        .end_object();
  });
}

}  // namespace dls::train
