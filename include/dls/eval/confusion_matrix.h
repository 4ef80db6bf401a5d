// Confusion matrices of a classifier (rows = true class, columns = predicted class) and
// their presentation as DLStudio prints them and as an annotated heat map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dls::eval {

class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(std::size_t num_classes);
  // Counts every (truth[i], predicted[i]); throws std::invalid_argument when the lengths
  // differ or a label is outside [0, num_classes).
  static ConfusionMatrix from_labels(const std::vector<std::int64_t>& truth, const std::vector<std::int64_t>& predicted,
                                     std::size_t num_classes);

  void add(std::size_t truth, std::size_t predicted);

  std::size_t num_classes() const { return n_; }
  std::int64_t count(std::size_t truth, std::size_t predicted) const { return counts_[truth * n_ + predicted]; }
  std::int64_t row_total(std::size_t truth) const;
  std::int64_t total() const;
  std::int64_t correct() const;

  // Fractions; NaN when there is nothing to divide by.
  double class_accuracy(std::size_t truth) const;  // recall of the class
  double accuracy() const;                         // correct / total
  double mean_class_accuracy() const;              // mean of the diagonal of the row-normalised matrix

  // Row-normalised percentages, row-major (a row without examples is all NaN).
  std::vector<double> row_percentages() const;

 private:
  std::size_t n_;
  std::vector<std::int64_t> counts_;
};

// DLStudio's test_checkpoint_for_visTransformer.py output, one line per class then the
// overall line, each percentage truncated to an integer as DLStudio's %d does:
//   Prediction accuracy for plane : 65 %
//   ...
//
//
//   Overall accuracy of the network on the test images: 56 %
std::string format_dlstudio_accuracies(const ConfusionMatrix& matrix, const std::vector<std::string>& names);

// DLStudio's confusion-matrix table: the title, a blank line, a header of the names each
// right-aligned in 7 columns after 12 spaces, then per true class "%9s:  " followed by the
// row's percentages with 2 decimals, each right-aligned in 7 columns:
//   Displaying the confusion matrix:
//
//                 plane    car ...
//       plane:    65.63   1.60 ...
std::string format_dlstudio_confusion(const ConfusionMatrix& matrix, const std::vector<std::string>& names);

// The row-normalised matrix as an annotated heat map PNG (percentages, 1 decimal).
void save_confusion_png(const ConfusionMatrix& matrix, const std::vector<std::string>& names, const std::string& title,
                        const std::string& path);

}  // namespace dls::eval
