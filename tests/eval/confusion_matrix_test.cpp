#include "dls/eval/confusion_matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "dls/data/image_dataset.h"
#include "dls/util/file_io.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::eval {
namespace {

// Rows (true): plane 2/1/0, car 1/1/0, bird 1/0/3.
ConfusionMatrix sample() {
  return ConfusionMatrix::from_labels({0, 0, 0, 1, 1, 2, 2, 2, 2}, {0, 0, 1, 1, 0, 2, 2, 2, 0}, 3);
}

TEST(ConfusionMatrix, CountsAndAccuracies) {
  const auto m = sample();
  EXPECT_EQ(m.count(0, 1), 1);
  EXPECT_EQ(m.count(2, 0), 1);
  EXPECT_EQ(m.row_total(2), 4);
  EXPECT_EQ(m.total(), 9);
  EXPECT_EQ(m.correct(), 6);
  EXPECT_DOUBLE_EQ(m.accuracy(), 6.0 / 9.0);
  EXPECT_DOUBLE_EQ(m.class_accuracy(1), 0.5);
  EXPECT_DOUBLE_EQ(m.mean_class_accuracy(), (2.0 / 3.0 + 0.5 + 0.75) / 3.0);
  const auto p = m.row_percentages();
  EXPECT_DOUBLE_EQ(p[0 * 3 + 1], 100.0 / 3.0);
  EXPECT_DOUBLE_EQ(p[2 * 3 + 2], 75.0);
  EXPECT_THROW(ConfusionMatrix::from_labels({0, 3}, {0, 1}, 3), std::invalid_argument);
  EXPECT_THROW(ConfusionMatrix::from_labels({0}, {0, 1}, 3), std::invalid_argument);
  ConfusionMatrix empty_row(2);
  empty_row.add(0, 0);
  EXPECT_TRUE(std::isnan(empty_row.class_accuracy(1)));
  EXPECT_DOUBLE_EQ(empty_row.mean_class_accuracy(), 1.0);
}

TEST(ConfusionMatrix, DLStudioAccuracyLines) {
  EXPECT_EQ(format_dlstudio_accuracies(sample(), {"plane", "car", "bird"}),
            "Prediction accuracy for plane : 66 %\n"
            "Prediction accuracy for   car : 50 %\n"
            "Prediction accuracy for  bird : 75 %\n"
            "\n\n"
            "Overall accuracy of the network on the test images: 66 %\n");
}

TEST(ConfusionMatrix, DLStudioTableLayout) {
  EXPECT_EQ(format_dlstudio_confusion(sample(), {"plane", "car", "bird"}),
            "Displaying the confusion matrix:\n"
            "\n"
            "              plane    car   bird\n"
            "    plane:    66.67  33.33   0.00\n"
            "      car:    50.00  50.00   0.00\n"
            "     bird:    25.00   0.00  75.00\n");
  EXPECT_THROW(format_dlstudio_confusion(sample(), {"a", "b"}), std::invalid_argument);
}

// The header of the reference page, character for character, for CIFAR-10's short names.
TEST(ConfusionMatrix, CifarHeaderMatchesDLStudio) {
  ConfusionMatrix m(10);
  for (std::size_t k = 0; k < 10; ++k) m.add(k, k);
  const auto text = format_dlstudio_confusion(m, data::cifar10_display_names());
  EXPECT_NE(text.find("\n              plane    car   bird    cat   deer    dog   frog  horse   ship  truck\n"
                      "    plane:   100.00   0.00   0.00"),
            std::string::npos)
      << text;
}

// Names of 7 characters (Fashion-MNIST's) widen every column to 8, so that they stay apart
// and each percentage ends under the end of its name.
TEST(ConfusionMatrix, LongNamesWidenTheColumns) {
  EXPECT_EQ(format_dlstudio_confusion(sample(), {"trouser", "pullovr", "bag"}),
            "Displaying the confusion matrix:\n"
            "\n"
            "             trouser pullovr     bag\n"
            "  trouser:     66.67   33.33    0.00\n"
            "  pullovr:     50.00   50.00    0.00\n"
            "      bag:     25.00    0.00   75.00\n");
}

// Names are aligned by the columns they take, not their bytes: "canción" (8 bytes, 7 columns)
// and a folder name that is not UTF-8 (a Latin-1 byte, shown as one replacement mark) sat one
// column off their numbers.
TEST(ConfusionMatrix, NamesAlignByTheColumnsTheyTake) {
  EXPECT_EQ(format_dlstudio_confusion(sample(), {"canción", "caf\xe9", "bird"}),
            "Displaying the confusion matrix:\n"
            "\n"
            "             canción    caf\xe9    bird\n"
            "  canción:     66.67   33.33    0.00\n"
            "     caf\xe9:     50.00   50.00    0.00\n"
            "     bird:     25.00    0.00   75.00\n");
  EXPECT_NE(format_dlstudio_accuracies(sample(), {"canción", "caf\xe9", "bird"})
                .find("Prediction accuracy for  caf\xe9 : 50 %"),
            std::string::npos);
}

TEST(ConfusionMatrix, HeatMapPng) {
  const auto dir = test::fresh_temp_dir("confusion_png");
  const auto path = (dir / "confusion.png").string();
  save_confusion_png(sample(), {"plane", "car", "bird"}, "test", path);
  const auto image = test::decode_png(util::read_file(path));
  EXPECT_GT(image.width, 100);
  EXPECT_GT(image.height, 100);
}

}  // namespace
}  // namespace dls::eval
