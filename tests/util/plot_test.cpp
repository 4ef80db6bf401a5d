// Renders one sample of each kind of figure the programs write, with realistic shapes and
// labels (Spanish words with accents, CIFAR-10 class names), and checks that each file is a
// readable PNG of the expected size. Set DLS_PLOT_SAMPLES_DIR to keep the files and look
// at them; otherwise they go to a temporary directory that is removed.
#include "dls/util/plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "dls/util/file_io.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

class PlotSamples : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* keep = std::getenv("DLS_PLOT_SAMPLES_DIR");
    keep_ = keep != nullptr && *keep != '\0';
    dir_ = keep_ ? fs::path(keep) : test::process_temp_path("plot_samples");
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!keep_) test::remove_tree(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static test::DecodedPng load(const std::string& file) { return test::decode_png(read_file(file)); }

  fs::path dir_;
  bool keep_ = false;
  std::mt19937 rng_{2024};
};

TEST_F(PlotSamples, LossCurveWithTwoSeries) {
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> steps, train, eval_steps, eval;
  for (int step = 10; step <= 6000; step += 10) {
    const double mean = 4.5 * std::exp(-step / 900.0) + 1.1 * std::exp(-step / 6000.0) + 0.6;
    steps.push_back(step);
    train.push_back(mean * std::exp(0.06 * noise(rng_)));
    if (step % 500 == 0) eval_steps.push_back(step), eval.push_back(mean * 1.08 + 0.05);
  }
  train[200] = std::nan("");  // a lost measurement: the line breaks there
  LinePlot plot("Training loss, TransformerFG (English → Spanish)");
  plot.x_label("training step")
      .y_label("cross-entropy loss (log scale)")
      .log_y()
      .add_series("training batches", steps, train)
      .add_series("validation", eval_steps, eval);
  plot.save(path("loss_curve.png"));
  const test::DecodedPng png = load(path("loss_curve.png"));
  EXPECT_EQ(png.width, 800);
  EXPECT_EQ(png.height, 500);
}

TEST_F(PlotSamples, AttentionHeatMapWithSpanishWords) {
  const std::vector<std::string> spanish = {"<SOS>", "¿dónde", "está", "la",      "estación",
                                            "de",    "tren",   "más",  "cercana?"};
  const std::vector<std::string> english = {"<SOS>", "where",   "is", "the",   "nearest",
                                            "train", "station", "?",  "<EOS>", "<PAD>"};
  const int aligned[] = {0, 1, 2, 3, 6, 6, 5, 4, 7};
  std::uniform_real_distribution<double> low(0.0, 0.25);
  std::vector<double> weights(9 * 10);
  for (int r = 0; r < 9; ++r) {
    double sum = 0;
    for (int c = 0; c < 10; ++c) sum += weights[r * 10 + c] = low(rng_) + (c == aligned[r] ? 2.5 : 0.0);
    for (int c = 0; c < 10; ++c) weights[r * 10 + c] /= sum;
  }
  HeatMap map(weights, 9, 10);
  map.title("Cross-attention, decoder layer 2, head 1")
      .row_labels(spanish)
      .col_labels(english)
      .x_label("English words (keys)")
      .y_label("Spanish words (queries)")
      .range(0, 1);
  map.save(path("attention.png"));
  const test::DecodedPng png = load(path("attention.png"));
  EXPECT_EQ(png.width, map.layout().width);
  EXPECT_EQ(png.height, map.layout().height);
}

TEST_F(PlotSamples, ConfusionMatrixWithValues) {
  const std::vector<std::string> classes = {"airplane", "automobile", "bird",  "cat",  "deer",
                                            "dog",      "frog",       "horse", "ship", "truck"};
  std::uniform_real_distribution<double> spread(0.0, 1.0);
  std::vector<double> percent(100);
  for (int r = 0; r < 10; ++r) {
    double sum = 0;
    for (int c = 0; c < 10; ++c) {
      const bool cat_dog = (r == 3 && c == 5) || (r == 5 && c == 3);
      sum += percent[r * 10 + c] = r == c ? 9.0 + r % 4 : spread(rng_) * (cat_dog ? 6.0 : 0.8);
    }
    for (int c = 0; c < 10; ++c) percent[r * 10 + c] *= 100.0 / sum;
  }
  HeatMap map(percent, 10, 10);
  map.title("CIFAR-10 test set: % of each true class")
      .row_labels(classes)
      .col_labels(classes)
      .x_label("predicted class")
      .y_label("true class")
      .range(0, 100)
      .annotate(1);
  map.save(path("confusion.png"));
  EXPECT_EQ(map.layout().annotation_scale, 2);
  const test::DecodedPng png = load(path("confusion.png"));
  EXPECT_EQ(png.width, map.layout().width);
}

TEST_F(PlotSamples, GridOfAttentionOverlays) {
  // Six 32 x 32 "photographs": a shape on a graded, noisy background, and a 7 x 7 patch
  // attention peaked on the shape.
  const char* captions[] = {"cat 0.91", "ship 0.77", "frog 0.64", "truck 0.88", "bird 0.52", "deer 0.95"};
  std::normal_distribution<double> grain(0, 8);
  std::vector<Canvas> panels;
  for (int k = 0; k < 6; ++k) {
    const double cx = 8 + 3.1 * k, cy = 22 - 2.3 * k, radius = 5 + k % 3;
    std::vector<std::uint8_t> image(32 * 32 * 3);
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        const bool shape = k % 2 == 0 ? std::hypot(x - cx, y - cy) < radius
                                      : std::fabs(x - cx) < radius && std::fabs(y - cy) < radius * 0.7;
        const double base[3] = {shape ? 210.0 - 25 * k : 70.0 + 3 * y, shape ? 90.0 + 20 * k : 110.0 + 2 * x,
                                shape ? 60.0 : 150.0 - 2 * y};
        for (int ch = 0; ch < 3; ++ch) {
          image[(y * 32 + x) * 3 + ch] = static_cast<std::uint8_t>(std::clamp(base[ch] + grain(rng_), 0.0, 255.0));
        }
      }
    }
    std::vector<double> weights(49);
    for (int r = 0; r < 7; ++r) {
      for (int c = 0; c < 7; ++c) {
        const double dx = (c + 0.5) * 32 / 7 - cx, dy = (r + 0.5) * 32 / 7 - cy;
        weights[r * 7 + c] = std::exp(-(dx * dx + dy * dy) / 50.0) + 0.05 * std::fabs(grain(rng_)) / 8;
      }
    }
    panels.push_back(attention_overlay({image.data(), 32, 32, 3}, weights, 7, 7, captions[k]));
  }
  const Canvas grid = tile_panels(panels, 3, "Class-token attention, last layer");
  grid.save_png(path("vit_attention_grid.png"));
  const test::DecodedPng png = load(path("vit_attention_grid.png"));
  EXPECT_EQ(png.width, grid.width());
  EXPECT_EQ(png.height, grid.height());
  EXPECT_GE(png.width, 3 * 128);
  EXPECT_GE(png.height, 2 * 128);
}

}  // namespace
}  // namespace dls::util
