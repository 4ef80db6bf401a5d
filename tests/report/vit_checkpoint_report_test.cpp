// The ViT part of checkpoint_eval: DLStudio's report layout, JSON, errors.
#include "dls/report/vit_checkpoint_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "support/program_run.h"
#include "dls/data/image_dataset.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls::report {
namespace {

namespace fs = std::filesystem;

// Each checkpoint is read once, the attention maps' too (it was read for a pass that told
// readable files, again for the test set, again for the evaluation, and the best again for
// the maps).
TEST(ViTCheckpointReport, PrintsDLStudiosReportAndTable) {
  const auto files = checkpoint::find_checkpoints(test::two_epoch_tiny_vit_run().string());
  VitEvalRequest request;
  request.attention_maps_dir = (test::two_epoch_tiny_vit_run() / "attention").string();
  request.attention_images = 4;
  std::ostringstream report;
  const auto opened_before = checkpoint::CheckpointReader::files_opened();
  ASSERT_NO_THROW(report_vit_checkpoints(files, request, report, std::cerr));
  EXPECT_EQ(checkpoint::CheckpointReader::files_opened() - opened_before, files.size()) << "one read per file";
  const std::string out = report.str();
  const auto lines = test::lines_of(out);
  const auto& names = data::fashion_mnist_display_names();

  // Per-class lines, DLStudio's "%5s : %2d %%", then the overall line.
  const std::regex per_class(R"(Prediction accuracy for +([a-z]+) : +(\d+) %)");
  std::size_t first = 0;
  while (first < lines.size() && lines[first].rfind("Prediction accuracy for", 0) != 0) ++first;
  ASSERT_LT(first + 10, lines.size()) << out;
  for (std::size_t k = 0; k < 10; ++k) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[first + k], m, per_class)) << lines[first + k];
    EXPECT_EQ(m[1].str(), names[k]);
    EXPECT_LE(std::stoi(m[2].str()), 100);
  }
  EXPECT_TRUE(
      std::regex_search(out, std::regex(R"(\n\n\nOverall accuracy of the network on the test images: \d+ %\n)")))
      << out;

  // The confusion matrix: title, blank line, header of names after 12 spaces, then one row
  // per class: "%9s:  " and ten percentages summing to 100, in columns of DLStudio's 7
  // characters widened to 8 by Fashion-MNIST's 7-character names.
  const auto title = std::find(lines.begin(), lines.end(), "Displaying the confusion matrix:");
  ASSERT_NE(title, lines.end()) << out;
  ASSERT_EQ(*(title + 1), "");
  std::string header(12, ' ');
  for (const auto& name : names) header += std::string(8 - name.size(), ' ') + name;
  EXPECT_EQ(*(title + 2), header);
  const std::regex row(R"( *([a-z]+):  ((?: *\d+\.\d\d){10}))");
  for (std::size_t k = 0; k < 10; ++k) {
    const auto& line = *(title + 3 + static_cast<std::ptrdiff_t>(k));
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, row)) << line;
    EXPECT_EQ(line.size(), 12u + 80u) << line;
    EXPECT_EQ(m[1].str(), names[k]);
    std::istringstream values(m[2].str());
    double sum = 0;
    for (double v; values >> v;) sum += v;
    EXPECT_NEAR(sum, 100.0, 0.06);
  }
  EXPECT_NE(out.find("All checkpoints:"), std::string::npos);
  EXPECT_NE(out.find("best: "), std::string::npos);
  EXPECT_TRUE(fs::exists(test::two_epoch_tiny_vit_run() / "confusion_checkpoint_epoch_0002.png"));
  EXPECT_TRUE(fs::exists(test::two_epoch_tiny_vit_run() / "attention" / "attention_mean.png"));
  EXPECT_TRUE(fs::exists(test::two_epoch_tiny_vit_run() / "attention" / "attention_heads.png"));
}

TEST(ViTCheckpointReport, JsonOutput) {
  VitEvalRequest request;
  request.json = true;
  request.output_dir = test::fresh_temp_dir("vit_eval_json").string();
  const auto checkpoint = checkpoint::latest_checkpoint(test::two_epoch_tiny_vit_run().string());  // trains first
  std::ostringstream report;
  ASSERT_NO_THROW(report_vit_checkpoints({checkpoint}, request, report, std::cerr));
  const std::string out = report.str();
  EXPECT_EQ(out.front(), '{');
  EXPECT_EQ(test::lines_of(out).size(), 1u);
  // Read back with nlohmann: the keys, in the order they were written.
  const auto json = nlohmann::ordered_json::parse(out);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"checkpoints", "best", "files"}));
  ASSERT_EQ(json.at("checkpoints").size(), 1u);
  const auto& entry = json.at("checkpoints").at(0);
  EXPECT_EQ(entry.at("path"), checkpoint);
  EXPECT_EQ(json.at("best"), checkpoint);
  const double accuracy = entry.at("test_accuracy").get<double>();
  EXPECT_GE(accuracy, 0.0);
  EXPECT_LE(accuracy, 1.0);
  EXPECT_TRUE(entry.at("class_accuracy").is_object());
  EXPECT_FALSE(entry.at("class_accuracy").empty());
}

// The error names the file in one line (checkpoint_eval prints it as "error: <what>").
TEST(ViTCheckpointReport, CorruptCheckpointIsAOneLineError) {
  const auto dir = test::fresh_temp_dir("vit_eval_corrupt");
  const auto path = (dir / "checkpoint_epoch_0001.pt").string();
  test::write_bytes(path, "PK\x03\x04 not really a zip archive");
  std::ostringstream report, messages;
  std::string err;
  try {
    report_vit_checkpoints({path}, VitEvalRequest{}, report, messages);
  } catch (const std::exception& error) {
    err = error.what();
  }
  EXPECT_EQ(messages.str(), "");
  ASSERT_EQ(test::lines_of(err).size(), 1u) << err;
  EXPECT_EQ(err.rfind(path, 0), 0u) << err;
}

// --attention-maps with --attention-images 0: refused before any work (it ended in an internal
// error after the confusion matrices were written, and the report was lost).
TEST(ViTCheckpointReport, AttentionMapsOfNoImagesAreRefused) {
  VitEvalRequest request;
  request.attention_maps_dir = (test::fresh_temp_dir("vit_eval_no_maps") / "maps").string();
  request.attention_images = 0;
  std::ostringstream report, messages;
  std::string err;
  try {
    report_vit_checkpoints({"/nonexistent/checkpoint_epoch_0001.pt"}, request, report, messages);
  } catch (const std::exception& error) {
    err = error.what();
  }
  EXPECT_EQ(err, "--attention-maps with --attention-images 0 draws nothing: give 1 or more");
}

}  // namespace
}  // namespace dls::report
