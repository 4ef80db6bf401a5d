// metrics.csv of a ViT run and the plots drawn from it (private to the trainer).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dls/util/csv.h"

namespace dls::train {

// Columns: kind ("step" or "epoch"), epoch, step (optimizer steps in all), loss, accuracy
// (training, fraction), test_accuracy (epoch rows), lr, images_per_s, wall_s.
const std::vector<std::string>& vit_metrics_header();

// Opens <run>/metrics.csv. Fresh runs start a new file; resumed runs keep the rows up to
// `resume_step` (rows written after the checkpoint by an interrupted run are dropped) and
// append.
std::unique_ptr<util::CsvWriter> open_vit_metrics(const std::string& path, bool resume,
                                                  std::int64_t resume_step);

// loss.png (training loss per logged step) and accuracy.png (training and test accuracy per
// epoch) in `run_dir`, drawn from the metrics file, so resumed runs show their whole history.
void write_vit_plots(const std::string& metrics_path, const std::string& run_dir);

}  // namespace dls::train
