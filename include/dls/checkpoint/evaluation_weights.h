// Which weights evaluation loads from a checkpoint that holds two sets: a run with
// --ema-decay saves the trained weights ("model", what --resume continues) and their moving
// average ("ema", what evaluation loads by default). checkpoint_eval --weights trained turns
// the default round for the whole process, so that one run's checkpoints can be scored both
// ways (evaluation_weights() in checkpoint.h reads it).
#pragma once

namespace dls::checkpoint {

// Called once at start-up, before any checkpoint is loaded.
void prefer_trained_weights(bool trained);

}  // namespace dls::checkpoint
