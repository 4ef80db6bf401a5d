// seq2seq training: the Seq2SeqTask on the shared training loop.
#include "dls/train/seq2seq_trainer.h"

#include <memory>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "seq2seq_task.h"
#include "training_support.h"

namespace dls::train {

Seq2SeqCheckpointInfo resume_info(const std::string& dir_or_file) {
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(dir_or_file), checkpoint::kSeq2SeqKind);
  return checkpoint::read_seq2seq_info(reader);
}

Seq2SeqTrainResult train_seq2seq(Seq2SeqConfig config, const Seq2SeqTrainOptions& options,
                                 const Seq2SeqRunControl& control) {
  LoopOptions loop;  // its clock starts now: data loading counts in wall times and --time-limit
  auto placement = place_training(options.device, control.precision, control.workers, control.parallel);
  auto& dist = placement.dist;
  loop.device = placement.device;
  loop.workers = placement.workers;
  loop.precision = control.precision;
  const std::string resume = control.resume.empty() ? resume_after_restart(options.run_dir) : control.resume;
  if (resume.empty() && !control.dry_run && dist.is_main()) claim_run_directory(options.run_dir, control.overwrite);
  std::unique_ptr<checkpoint::CheckpointReader> reader;
  Seq2SeqCheckpointInfo checkpoint;
  if (!resume.empty()) {
    reader =
        std::make_unique<checkpoint::CheckpointReader>(checkpoint::latest_checkpoint(resume), checkpoint::kSeq2SeqKind);
    checkpoint = checkpoint::read_seq2seq_info(*reader);
    spdlog::info("resuming from {} (epoch {}, {} steps into it, {} steps in all)", reader->path(),
                 checkpoint.progress.epoch, checkpoint.progress.step_in_epoch, checkpoint.progress.global_step);
  }
  Seq2SeqTask task(std::move(config), options, reader ? &checkpoint : nullptr, reader ? reader->path() : "",
                   loop.device, loop.workers);
  if (!control.dlstudio_vocab.empty()) task.log_dlstudio_counts(control.dlstudio_vocab);
  Seq2SeqTrainResult result;
  result.encoder_parameters = count_parameters(*task.transformer()->master_encoder).parameters;
  result.decoder_parameters = count_parameters(*task.transformer()->master_decoder).parameters;
  result.parameters = count_parameters(task.model()).parameters;
  result.run_dir = options.run_dir.empty() ? run_dir_of(resume) : options.run_dir;
  result.val_loss = task.val_loss();
  result.val_bleu = task.val_bleu();
  if (control.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }

  fill_loop_options(loop, result.run_dir, options.epochs, options.optimizer, options.selection, options, control,
                    &dist);
  const auto state = reader ? task.loop_state(checkpoint.progress) : LoopState{};
  const auto done = run_training(task, state, loop, std::move(reader));
  result.pairs_per_s = done.examples_per_s;
  result.final_loss = done.final_loss;
  result.val_loss = task.val_loss();
  result.val_bleu = task.val_bleu();
  if (const auto* validation = task.last_validation()) {
    result.val_sacrebleu = validation->sacrebleu.score;
    result.val_chrf = validation->chrf.score;
    result.sacrebleu_signature = validation->sacrebleu.signature;
    result.chrf_signature = validation->chrf.signature;
  }
  result.epochs = done.epochs;
  result.iterations = done.iterations;
  result.wall_s = done.wall_s;
  result.checkpoints = done.checkpoints;
  result.stopped_by = done.stopped_by;
  result.parallel = {done.world_size, done.rank, done.backend, done.all_reduce_s};
  return result;
}

}  // namespace dls::train
