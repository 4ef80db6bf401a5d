// The plots a training run draws from its metrics.csv (loss.png, bleu.png, accuracy.png,
// perplexity.png), built as LinePlots before they are saved, so that tests read their legends
// and scales. Each task's plots are drawn from the whole file, so resumed runs show their
// whole history; a metrics.csv written before a column was added plots without it.
#pragma once

#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "dls/settings/lr_schedule.h"
#include "dls/util/canvas.h"
#include "dls/util/line_plot.h"

namespace dls::train {

// One plot of a run: its file name in the run directory and what it draws.
struct RunPlot {
  std::string file;
  util::LinePlot plot;
};

// Legend names of a loss plot. With label smoothing the training loss is the smoothed one
// and the held-out loss ("validation" or "test") the plain NLL, and the names say so:
// "training loss (label smoothing 0.1)" and "validation loss (plain NLL)".
struct LossSeriesNames {
  std::string training, held_out;
};
LossSeriesNames loss_series_names(double label_smoothing, const std::string& held_out);

// loss.png (training loss per step, validation loss per epoch) and bleu.png (validation BLEU
// per epoch on the 0-100 scale: NLTK's corpus BLEU x 100 and sacreBLEU).
std::vector<RunPlot> seq2seq_run_plots(const std::string& metrics_path, double label_smoothing);
// loss.png (training loss per step, test loss per epoch) and accuracy.png (training and test
// accuracy per epoch, %).
std::vector<RunPlot> vit_run_plots(const std::string& metrics_path, double label_smoothing);
// loss.png (training loss per step, validation NLL per epoch) and perplexity.png (validation
// perplexity per epoch).
std::vector<RunPlot> lm_run_plots(const std::string& metrics_path, double label_smoothing);

// learning_rate.png: the schedule planned for the run (`planned` at steps 1..total_steps,
// drawn before the first step too) and the rate the logged steps used (metrics.csv's step
// rows: a --time-limit run's budgeted schedule, or a resumed run's whole history).
RunPlot learning_rate_plot(const std::string& metrics_path, const settings::LrSchedule& planned,
                           std::int64_t total_steps);

// positional_encoding.png: the sinusoidal positional encodings a model adds to its token
// embeddings (`encodings` [L, M], the model's own table), positions x dimensions as a picture
// (low dimensions wave fast along the positions, high ones slowly), beside the dot products of
// every two positions (P P^T [L, L]: a position is most like itself and its neighbours).
util::Canvas positional_encoding_picture(const torch::Tensor& encodings);
// The sinusoidal table of `model`: its first buffer named "positional_encoding" ([L, M]);
// undefined when it has none (a ViT's positions are learned parameters).
torch::Tensor sinusoidal_encodings_of(const torch::nn::Module& model);

// Saves each plot that has a series into `run_dir`; a failure is a warning in the log, not
// an error (the plots are a convenience beside metrics.csv).
void save_run_plots(const std::vector<RunPlot>& plots, const std::string& run_dir);

}  // namespace dls::train
