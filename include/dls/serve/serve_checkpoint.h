// translate_server's work once its flags are read: load a run's checkpoint -- a seq2seq
// model (translation) or a ViT (classification), the kind read from the file -- prepare it
// as the flags ask, and serve it until SIGTERM or SIGINT (serve_until_signalled).
#pragma once

#include <iosfwd>
#include <string>

#include "dls/checkpoint/checkpoint.h"
#include "dls/serve/serve_settings.h"

namespace dls::serve {

struct ServedModel {
  std::string checkpoint;  // a run directory (its best.pt, else its newest checkpoint) or a file
  std::string device = "cpu";
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;
  std::string precision = "fp32";  // fp32, bf16 or fp16: the model thread's autocast
  std::string quantize = "none";   // none or int8 (translation models on the CPU)
  int decode_workers = 0;          // a batch's chunks decoded in parallel (0: one per intra-op thread)
  // On the CPU, one intra-op thread unless --threads gave them (measured best: docs/serving.md).
  bool threads_given = false;
};

// Loads `model` and serves it with `settings` (its checkpoint file, batching and autocast
// filled in here); writes "listening on ..." to `ready`. Returns when a signal stopped it.
// Throws std::runtime_error (one line) when the checkpoint cannot be served as asked.
void serve_checkpoint(const ServedModel& model, ServeSettings settings, std::ostream& ready);

}  // namespace dls::serve
