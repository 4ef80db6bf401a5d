// What every training run has besides its task's model, data and optimisation: where it
// runs, where it writes, and when it stops. Each task's settings hold one
// (Seq2SeqTrainSettings::run, LmTrainSettings::run, ViTTrainSettings::run); checkpoints
// record it as "run.*", and a resume starts from the checkpoint's
// (resume_defaults()) before the command line's flags apply.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "dls/util/declared.h"
#include "dls/util/device.h"
#include "dls/util/key_values.h"
#include "dls/util/precision.h"

namespace dls::settings {

using util::read_saved_settings;
using util::saved_settings;
using util::Setting;

// Data parallelism (torchrun). Not saved: the run's result does not depend on it.
struct ParallelSettings {
  std::string backend = "auto";  // gloo, nccl, or auto: NCCL for CUDA when the LibTorch has it, else Gloo
  double timeout_s = 300;        // a peer silent for this long ends the run with an error
  int accum_steps = 1;           // micro-batches per optimizer step (train/training_loop.h)
  double bucket_mb = 25;         // gradient bucket size (MiB) for overlapping all-reduce with backward; 0: none
};

// --keep-last's default: enough for checkpoint_eval --average 5 and for a resume to fall back
// on an earlier checkpoint.
constexpr int kDefaultKeepLast = 5;

struct RunSettings {
  // Where it runs (saved: device, precision). The intra-op threads are the process's
  // (--threads, util/runtime.h), set before any settings exist.
  std::string device = "cpu";                          // cpu | cuda | auto
  util::Precision precision = util::Precision::kFp32;  // autocast of the forward passes; weights stay fp32
  // > 1 (CPU): each step's batch is cut into this many chunks trained concurrently, one thread
  // each (train/parallel/split_batch.h), the same gradient up to rounding; 0: the model's
  // default for the threads (util/thread_policy.h). One on a GPU.
  int workers = 0;
  ParallelSettings parallel;
  // The training step replayed as CUDA graphs: auto (whenever the device and the run allow
  // it), on (an error when they do not), off (train/step_plan.h). Not saved: the same
  // training, a different way to launch it.
  std::string cuda_graphs = "auto";
  // CUDA: float32 matrix products with TF32 inputs (tensor cores; sums in float32). Not saved:
  // the recipe's, as --cuda-graphs.
  bool tf32 = false;

  // Where it writes (saved: the three intervals).
  std::string run_dir;                // "": the resumed checkpoint's run, else the task's runs/<task>
  std::int64_t checkpoint_every = 1;  // epochs between checkpoints (the last one is always saved)
  // > 0: keep only the newest K checkpoints this run wrote (and the one best.pt names), so
  // that a long run does not fill the disk; 0: all.
  int keep_last = kDefaultKeepLast;
  std::int64_t log_every = 100;  // steps between log lines and metrics.csv rows
  // metrics.csv's rows also as TensorBoard scalars in RUN/tensorboard (train/training_log.h);
  // saved, so that a resumed run keeps writing them.
  bool tensorboard = false;

  // When it stops, besides the task's epochs. max_iters is a limit of one invocation (not
  // saved); the time budget is the run's (saved, so that a resume shows and keeps it; the
  // loop's own state has how much of it is spent -- budgeted_schedule.h).
  std::int64_t max_iters = 0;  // > 0: stop once the run has made this many steps in all
  // > 0: the whole run's budget in seconds: stop there with a checkpoint, a cosine schedule
  // laid out to end there. A checkpoint written before the budget was saved here resumes with
  // 0, and the loop takes the budget from its state.
  double time_limit_s = 0;
  // A fresh run's starting weights (train/init_from.h): another run's checkpoint file or run
  // directory. The recipe's (config.toml), not the checkpoints': a resume continues its own.
  std::string init_from;

  // This invocation only: never saved, never in config.toml.
  std::string resume;       // checkpoint file or run directory (its newest checkpoint) to continue
  bool overwrite = false;   // a fresh run moves an earlier run in its directory aside (.old-N)
  bool dry_run = false;     // read the data, build the model, print the report, stop
  std::string config_toml;  // the program's settings, written to a fresh run's directory as config.toml

  // A task's own defaults: where its runs go and how often they checkpoint and log.
  static RunSettings task_defaults(std::string run_dir, std::int64_t checkpoint_every, std::int64_t log_every) {
    RunSettings run;
    run.run_dir = std::move(run_dir);
    run.checkpoint_every = checkpoint_every;
    run.log_every = log_every;
    return run;
  }

  // Saved under "run." in the tasks' checkpoints: device, precision, the three intervals,
  // --tensorboard and --time-limit.
  // Checkpoints written before these keys keep the defaults, but for keep_last: 0, every
  // checkpoint kept, as such runs did. Groups: Training, Output (the trainers' --help).
  template <typename Fields>
  static void declare(RunSettings& s, Fields& f) {
    f.group("Training");
    f(s.max_iters, Setting("", "--max-iters",
                           "stop once the run has made this many steps in all (0: no limit; a resume does not keep it)")
                       .range(0, 1000000000000)
                       .recipe());
    f(s.time_limit_s, Setting("time_limit_s", "--time-limit",
                              "the whole run's budget in seconds: stop there with a checkpoint, a cosine schedule laid "
                              "out to end there (0: none; a resume keeps the run's)")
                          .range(0, 1000000000)
                          .default_when_absent());
    f(s.init_from, Setting("", "--init-from",
                           "start a new run from the weights of CKPT (a checkpoint, or a run directory: its newest): "
                           "every tensor that fits, embeddings and output rows by token; the optimizer, schedule "
                           "and run are new (not with --resume)")
                       .as_path()
                       .recipe());
    f(s.device, Setting("device", "--device", "cpu, cuda or auto (default cpu; a resume keeps the run's)")
                    .one_of(util::kDeviceNames)
                    .default_when_absent());
    f.property(
        Setting("precision", "--precision",
                std::string(util::kPrecisionHelp) + " (default fp32; a resume keeps the run's)")
            .one_of(util::kPrecisionNames.names())
            .default_when_absent(),
        [&] { return util::precision_name(s.precision); },
        [&](const std::string& name) { s.precision = util::parse_precision(name); });
    f(s.cuda_graphs, Setting("", "--cuda-graphs",
                             "auto, on or off: the training step recorded as CUDA graphs and replayed (seq2seq on one "
                             "GPU, fp32 or bf16; turns --static-shapes on); auto: whenever the run allows it (default "
                             "auto; not saved)")
                         .one_of({"auto", "on", "off"})
                         .recipe());
    f(s.tf32, Setting("", "--tf32",
                      "CUDA: float32 matrix products with TF32 inputs (10-bit mantissas, float32 sums) on tensor "
                      "cores; weights, activations and optimizer stay float32 (off by default, as in LibTorch; not "
                      "saved)")
                  .as_switch()
                  .recipe());
    f.group("Data parallelism (torchrun)");  // how one invocation spreads the work: not in config.toml
    f(s.parallel.backend, Setting("", "--dist-backend",
                                  "under torchrun (or RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT): gloo, nccl or auto "
                                  "(default; NCCL for CUDA when available)")
                              .one_of({"gloo", "nccl", "auto"})
                              .invocation());
    f(s.parallel.timeout_s,
      Setting("", "--dist-timeout",
              "seconds a rank waits for the others before the run ends with an error (default 300)")
          .range(1, 86400)
          .invocation());
    f(s.parallel.accum_steps,
      Setting("", "--accum-steps",
              "micro-batches per step (gradient accumulation): the same step in less memory (default 1)")
          .range(1, 4096)
          .invocation());
    f(s.parallel.bucket_mb, Setting("", "--bucket-mb",
                                    "MiB of gradients per all-reduce bucket, started while backward runs (as DDP's "
                                    "bucket_cap_mb); 0: one all-reduce after backward (default 25)")
                                .range(0, 1e6)
                                .invocation());
    f.group("Output");
    // The task's settings hold its default directory (runs/seq2seq, ...) until a checkpoint's
    // run replaces it; --help shows the default.
    f(s.run_dir,
      Setting("", "--run-dir", "run directory (default " + s.run_dir + "; with --resume, the checkpoint's run)")
          .as_path()
          .recipe());
    f(s.checkpoint_every,
      Setting("checkpoint_every", "--checkpoint-every", "epochs between checkpoints; the last is always saved")
          .range(0, 1000000)
          .default_when_absent());
    f(s.keep_last, Setting("keep_last", "--keep-last",
                           "keep only the newest K checkpoints of this run, and the one best.pt names (default 5; 0: "
                           "all; a resume keeps the run's)")
                       .range(0, 1000000)
                       .when_absent("0"));
    f(s.log_every, Setting("log_every", "--log-every", "steps between log lines and metrics.csv rows")
                       .range(0, 1000000000)
                       .default_when_absent());
    f(s.tensorboard, Setting("tensorboard", "--tensorboard",
                             "also write metrics.csv's rows as TensorBoard scalars (train/ per logged step, epoch/ "
                             "per evaluation) to RUN/tensorboard: tensorboard --logdir RUN/tensorboard")
                         .as_switch()
                         .default_when_absent());
  }
  util::KeyValues to_settings() const { return saved_settings(*this); }
  // Reads what to_settings() wrote over `defaults`; throws std::runtime_error naming a
  // malformed key.
  static RunSettings from_settings(const util::KeyValues& settings, const RunSettings& defaults) {
    RunSettings run = defaults;
    read_saved_settings(settings, run);
    return run;
  }
  // The starting point of a resume: the checkpoint's saved settings, nothing of the
  // invocation, no per-invocation limit (max_iters: 0), and run_dir "" (the checkpoint's
  // run).
  RunSettings resume_defaults() const;
};

}  // namespace dls::settings
