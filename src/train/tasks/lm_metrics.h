// metrics.csv of a language-model run and the plots drawn from it (private to the trainer).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step, loss (training, mean per token over the
// logged window or the epoch), lr, sentences_per_s, val_loss (mean NLL per token) and
// val_perplexity (epoch rows), wall_s.
const std::vector<std::string>& lm_metrics_header();

// loss.png (training loss per logged step, validation NLL per epoch) and perplexity.png
// (validation perplexity per epoch) in `run_dir`, from the whole metrics file.
void write_lm_plots(const std::string& metrics_path, const std::string& run_dir);

}  // namespace dls::train
