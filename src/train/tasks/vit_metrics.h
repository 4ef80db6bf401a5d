// metrics.csv of a ViT run (private to the trainer); its plots are vit_run_plots
// (run_plots.h).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step (optimizer steps in all), loss, accuracy
// (training, fraction), test_accuracy (epoch rows), lr, images_per_s, wall_s, then the
// columns appended later (so older runs' files end earlier): test_loss (epoch rows; the plain
// cross-entropy), val_accuracy and val_loss (the held-out training images best.pt is chosen
// by).
const std::vector<std::string>& vit_metrics_header();

}  // namespace dls::train
