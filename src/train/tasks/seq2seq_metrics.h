// metrics.csv of a seq2seq run and the plots drawn from it (private to the trainer).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step (optimizer steps in all), loss (training,
// mean over the logged window or the epoch), lr, pairs_per_s, val_loss and val_bleu (epoch
// rows; BLEU on NLTK's 0-1 scale), wall_s.
const std::vector<std::string>& seq2seq_metrics_header();

// loss.png (training loss per logged step, validation loss per epoch, both against the
// step) and bleu.png (validation BLEU per epoch) in `run_dir`, from the whole metrics file.
void write_seq2seq_plots(const std::string& metrics_path, const std::string& run_dir);

}  // namespace dls::train
