// metrics.csv of a seq2seq run (private to the trainer); its plots are seq2seq_run_plots
// (run_plots.h).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step (optimizer steps in all), loss (training,
// mean over the logged window or the epoch), lr, pairs_per_s, val_loss and val_bleu (epoch
// rows; BLEU on NLTK's 0-1 scale), wall_s, then val_sacrebleu and val_chrf (epoch rows;
// sacreBLEU and chrF2, 0-100; appended later, so older runs' files end at wall_s).
const std::vector<std::string>& seq2seq_metrics_header();

}  // namespace dls::train
