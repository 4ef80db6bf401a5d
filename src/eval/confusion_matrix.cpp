#include "dls/eval/confusion_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "dls/util/heat_map.h"
#include "dls/util/utf8.h"

namespace dls::eval {

namespace {

std::string printf_string(const char* format, const std::string& text) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), format, text.c_str());
  return buffer;
}

void check_names(const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  if (names.size() != matrix.num_classes()) {
    throw std::invalid_argument("confusion matrix: " + std::to_string(names.size()) + " names for " +
                                std::to_string(matrix.num_classes()) + " classes");
  }
}

// DLStudio's int(100 * fraction): truncation toward zero.
std::string truncated_percent(double fraction) {
  return std::isfinite(fraction) ? std::to_string(static_cast<long long>(100.0 * fraction)) : "nan";
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(std::size_t num_classes) : n_(num_classes), counts_(num_classes * num_classes, 0) {
  if (num_classes == 0) throw std::invalid_argument("confusion matrix: no classes");
}

ConfusionMatrix ConfusionMatrix::from_labels(const std::vector<std::int64_t>& truth,
                                             const std::vector<std::int64_t>& predicted, std::size_t num_classes) {
  if (truth.size() != predicted.size()) {
    throw std::invalid_argument("confusion matrix: " + std::to_string(truth.size()) + " labels but " +
                                std::to_string(predicted.size()) + " predictions");
  }
  ConfusionMatrix matrix(num_classes);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    if (truth[i] < 0 || predicted[i] < 0) throw std::invalid_argument("confusion matrix: negative label");
    matrix.add(static_cast<std::size_t>(truth[i]), static_cast<std::size_t>(predicted[i]));
  }
  return matrix;
}

void ConfusionMatrix::add(std::size_t truth, std::size_t predicted) {
  if (truth >= n_ || predicted >= n_) {
    throw std::invalid_argument("confusion matrix: label " + std::to_string(std::max(truth, predicted)) +
                                " outside [0, " + std::to_string(n_) + ")");
  }
  ++counts_[truth * n_ + predicted];
}

std::int64_t ConfusionMatrix::row_total(std::size_t truth) const {
  std::int64_t sum = 0;
  for (std::size_t j = 0; j < n_; ++j) sum += count(truth, j);
  return sum;
}

std::int64_t ConfusionMatrix::total() const {
  std::int64_t sum = 0;
  for (auto c : counts_) sum += c;
  return sum;
}

std::int64_t ConfusionMatrix::correct() const {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n_; ++i) sum += count(i, i);
  return sum;
}

double ConfusionMatrix::class_accuracy(std::size_t truth) const {
  const auto total_of_row = row_total(truth);
  return total_of_row > 0 ? static_cast<double>(count(truth, truth)) / static_cast<double>(total_of_row) : NAN;
}

double ConfusionMatrix::accuracy() const {
  const auto all = total();
  return all > 0 ? static_cast<double>(correct()) / static_cast<double>(all) : NAN;
}

double ConfusionMatrix::mean_class_accuracy() const {
  double sum = 0;
  std::size_t rows = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double a = class_accuracy(i);
    if (std::isfinite(a)) {
      sum += a;
      ++rows;
    }
  }
  return rows > 0 ? sum / static_cast<double>(rows) : NAN;
}

std::vector<double> ConfusionMatrix::row_percentages() const {
  std::vector<double> values(n_ * n_, NAN);
  for (std::size_t i = 0; i < n_; ++i) {
    const auto total_of_row = row_total(i);
    if (total_of_row == 0) continue;
    for (std::size_t j = 0; j < n_; ++j) {
      values[i * n_ + j] = 100.0 * static_cast<double>(count(i, j)) / static_cast<double>(total_of_row);
    }
  }
  return values;
}

// `text` right-aligned in `columns` terminal columns: by display width, not bytes, so that a
// name such as "canción" (or one that is not UTF-8: each bad sequence one replacement mark) lines up.
std::string right_aligned(const std::string& text, int columns) {
  return std::string(static_cast<std::size_t>(std::max(0, columns - util::display_width(text))), ' ') + text;
}

std::string format_dlstudio_accuracies(const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  check_names(matrix, names);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += "Prediction accuracy for " + right_aligned(names[i], 5) + " : " +
           printf_string("%2s", truncated_percent(matrix.class_accuracy(i))) + " %\n";
  }
  out += "\n\nOverall accuracy of the network on the test images: " + truncated_percent(matrix.accuracy()) + " %\n";
  return out;
}

std::string format_dlstudio_confusion(const ConfusionMatrix& matrix, const std::vector<std::string>& names) {
  check_names(matrix, names);
  // DLStudio's columns are 7 wide; wider only where a name needs it, so that names of 7 or
  // more characters (Fashion-MNIST's "trouser", "pullovr", "sneaker") stay apart.
  int width = 7, label_width = 9;
  for (const auto& name : names) {
    width = std::max(width, util::display_width(name) + 1);
    label_width = std::max(label_width, util::display_width(name));
  }
  std::string out =
      "Displaying the confusion matrix:\n\n" + std::string(static_cast<std::size_t>(label_width) + 3, ' ');
  for (const auto& name : names) out += right_aligned(name, width);
  out += "\n";
  const auto percent = matrix.row_percentages();
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += right_aligned(names[i], label_width) + ":  ";
    for (std::size_t j = 0; j < names.size(); ++j) {
      char cell[32];
      std::snprintf(cell, sizeof(cell), "%*.2f", width, percent[i * names.size() + j]);
      out += cell;
    }
    out += "\n";
  }
  return out;
}

void save_confusion_png(const ConfusionMatrix& matrix, const std::vector<std::string>& names, const std::string& title,
                        const std::string& path) {
  check_names(matrix, names);
  const int n = static_cast<int>(matrix.num_classes());
  util::HeatMap(matrix.row_percentages(), n, n)
      .title(title)
      .row_labels(names)
      .col_labels(names)
      .y_label("true class")
      .x_label("predicted class")
      .range(0, 100)
      .annotate(1)
      .save(path);
}

}  // namespace dls::eval
