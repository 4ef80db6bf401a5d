// metrics.csv of a language-model run (private to the trainer); its plots are lm_run_plots
// (run_plots.h).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step, loss (training, mean per token over the
// logged window or the epoch), lr, sentences_per_s, val_loss (mean NLL per token) and
// val_perplexity (epoch rows), wall_s, then val_word_perplexity (epoch rows; per word and
// EOS, which compares tokenizers; appended later, so older runs' files end at wall_s).
const std::vector<std::string>& lm_metrics_header();

}  // namespace dls::train
