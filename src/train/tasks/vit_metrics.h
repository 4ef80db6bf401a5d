// metrics.csv of a ViT run and the plots drawn from it (private to the trainer).
#pragma once

#include <string>
#include <vector>

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step (optimizer steps in all), loss, accuracy
// (training, fraction), test_accuracy (epoch rows), lr, images_per_s, wall_s.
const std::vector<std::string>& vit_metrics_header();

// loss.png (training loss per logged step) and accuracy.png (training and test accuracy per
// epoch) in `run_dir`, drawn from the metrics file, so resumed runs show their whole history.
void write_vit_plots(const std::string& metrics_path, const std::string& run_dir);

}  // namespace dls::train
