// translate_server's page in headless Chromium, used as a person uses it (the probe,
// tests/apps/server_page_probe.js, moves the pointer, presses keys, clicks and chooses files,
// and measures where things land): the tooltip of a hovered cell lies beside the pointer and
// inside that map's figure, an outline marks the cell, and the arrow keys move both, on the
// translation page's maps and the ViT page's alike; Ctrl+Enter and Cmd+Enter translate; a
// rejected long sentence and its error wrap as prose; the ViT page has a colour scale, a sample
// image that classifies with one click, and a failed upload clears the previous answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/eval/image_classifier.h"
#include "dls/eval/translator.h"
#include "dls/util/colormap.h"
#include "dls/util/file_io.h"
#include "support/browser_page.h"
#include "support/child_processes.h"
#include "support/outside_needs.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

// A namespace of its own: the tests are compiled in unity batches.
namespace dls::test::server_page_interaction {
namespace {

using namespace browser;
using nlohmann::json;

// j[key], or null when j is no object or has no such key.
json field(const json& j, const std::string& key) { return j.is_object() && j.contains(key) ? j.at(key) : json(); }

// j[key] as a string, "" when it is none.
std::string text(const json& j, const std::string& key) {
  const auto v = field(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}

struct Box {
  double left = 0, top = 0, right = 0, bottom = 0;
  bool visible = false;
};

Box box_of(const json& j) {
  if (!j.is_object()) return {};
  return {j.value("left", 0.0), j.value("top", 0.0), j.value("right", 0.0), j.value("bottom", 0.0),
          j.value("visible", false)};
}

std::string describe(const Box& b) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "[%.1f, %.1f]-[%.1f, %.1f]%s", b.left, b.top, b.right, b.bottom,
                b.visible ? "" : " (hidden)");
  return buffer;
}

bool inside(const Box& inner, const Box& outer) {
  constexpr double kSlack = 1;  // rounding to whole pixels
  return inner.left >= outer.left - kSlack && inner.right <= outer.right + kSlack && inner.top >= outer.top - kSlack &&
         inner.bottom <= outer.bottom + kSlack;
}

// The gap between two rectangles (0 when they touch or overlap).
double gap(const Box& a, const Box& b) {
  const double dx = std::max({0.0, a.left - b.right, b.left - a.right});
  const double dy = std::max({0.0, a.top - b.bottom, b.top - a.bottom});
  return std::hypot(dx, dy);
}

bool overlap(const Box& a, const Box& b) {
  constexpr double kSlack = 0.5;
  return a.left < b.right - kSlack && b.left < a.right - kSlack && a.top < b.bottom - kSlack &&
         b.top < a.bottom - kSlack;
}

// The readout the probe saw (see readout() in the probe): the tooltip beside `anchor` (the
// pointer, a point, or the highlighted cell), not over it, inside the map's figure; the
// outline on `cell`.
void expect_readout_at(const json& seen, const Box& anchor, const Box& cell) {
  const Box tip = box_of(field(seen, "tooltip")), figure = box_of(field(seen, "figure")),
            outline = box_of(field(seen, "outline"));
  ASSERT_TRUE(tip.visible) << "no tooltip";
  EXPECT_TRUE(inside(tip, figure)) << "tooltip " << describe(tip) << " outside the hovered map's figure "
                                   << describe(figure);
  EXPECT_LE(gap(tip, anchor), 30) << "tooltip " << describe(tip) << " far from " << describe(anchor);
  EXPECT_FALSE(overlap(tip, anchor)) << "tooltip " << describe(tip) << " covers " << describe(anchor);
  ASSERT_TRUE(outline.visible) << "no outline on the cell";
  for (const auto& [got, want] : {std::pair{outline.left, cell.left}, std::pair{outline.top, cell.top},
                                  std::pair{outline.right, cell.right}, std::pair{outline.bottom, cell.bottom}}) {
    EXPECT_NEAR(got, want, 1) << "outline " << describe(outline) << ", cell " << describe(cell);
  }
}

Box point(const json& p) {
  const double x = p.value("x", 0.0), y = p.value("y", 0.0);
  return {x, y, x, y, true};
}

// "row → column: weight" as the translation page's tooltip says it.
void expect_weight_text(const std::string& text, const std::string& tokens, double weight) {
  ASSERT_EQ(text.substr(0, tokens.size()), tokens) << text;
  const std::string number = text.substr(tokens.size());
  char* end = nullptr;
  const double said = std::strtod(number.c_str(), &end);
  ASSERT_TRUE(!number.empty() && *end == '\0') << "no weight: " << text;
  EXPECT_NEAR(said, weight, 2e-3) << text;
}

const char* const kArrow = " \xE2\x86\x92 ";  // →

TEST(ServerPageInteraction, ChromiumReadoutFollowsThePointerAndTheArrowKeys) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const std::string sentence = "I do not drink tea.";
  const auto dir = fresh_temp_dir("server_page_readout");
  ChildProcesses children;
  PageServer server(children, dir, "", page_with_probe(dir).string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const auto result = probe_result(chromium(
      children, dir, "readout", server.url() + "/?probe=keys,hover&sentence=" + url_encoded(sentence), "--dump-dom"));
  ASSERT_EQ(result.value("settled", ""), "done") << result.dump();

  const auto attention = library_attention(sentence);
  struct Kind {
    const std::vector<torch::Tensor>* layers;
    const std::vector<std::string>* rows;
    const std::vector<std::string>* cols;
  };
  const std::map<std::string, Kind> kinds = {
      {"encoder_self", {&attention.encoder_self, &attention.source, &attention.source}},
      {"decoder_self", {&attention.decoder_self, &attention.written, &attention.target}},
      {"cross", {&attention.cross, &attention.written, &attention.source}}};

  // The arrow keys on the second head's cross-attention map: right, right, down, then left
  // five times, stopping at the first column; the readout follows the highlighted cell.
  const auto keys = field(result, "keys");
  ASSERT_TRUE(keys.is_array()) << keys.dump();
  const std::vector<std::string> cells = {"0,1", "0,2", "1,2", "1,1", "1,0", "1,0", "1,0", "1,0"};
  ASSERT_EQ(keys.size(), cells.size());
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const auto& seen = keys[k];
    SCOPED_TRACE("key " + std::to_string(k) + " " + seen.value("key", ""));
    EXPECT_TRUE(seen.value("prevented", false)) << "the arrow key scrolled the page instead";
    EXPECT_EQ(text(seen, "highlight"), cells[k]);
    const int i = cells[k][0] - '0', j = cells[k][2] - '0';
    expect_weight_text(text(seen, "text"), attention.written.at(i) + kArrow + attention.source.at(j) + ": ",
                       attention.cross[0][1][i][j].item<double>());
    const Box cell = box_of(field(seen, "cell"));
    expect_readout_at(seen, cell, cell);
  }

  // The pointer over the first, the middle and the last cell of every map.
  const auto hovers = field(result, "hover");
  ASSERT_TRUE(hovers.is_array()) << hovers.dump();
  EXPECT_EQ(hovers.size(), 3u * 6) << "three cells of each of the six maps";
  for (const auto& seen : hovers) {
    const std::string map = seen.value("map", "");
    const int i = seen.value("i", -1), j = seen.value("j", -1);
    SCOPED_TRACE(map + " cell " + std::to_string(i) + "," + std::to_string(j));
    const auto kind = kinds.at(map.substr(0, map.find(':')));
    const int layer = map[map.size() - 3] - '0', head = map.back() - '0';
    expect_weight_text(text(seen, "text"), kind.rows->at(i) + kArrow + kind.cols->at(j) + ": ",
                       (*kind.layers)[layer][head][i][j].item<double>());
    EXPECT_EQ(text(seen, "highlight"), std::to_string(i) + "," + std::to_string(j));
    expect_readout_at(seen, point(field(seen, "pointer")), box_of(field(seen, "cell")));
  }
}

TEST(ServerPageInteraction, ChromiumTranslatesOnCtrlEnterAndWrapsALongSentence) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const auto dir = fresh_temp_dir("server_page_keys");
  ChildProcesses children;
  PageServer server(children, dir, "", page_with_probe(dir).string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const auto result =
      probe_result(chromium(children, dir, "submit", server.url() + "/?probe=submit,long", "--dump-dom"));
  ASSERT_EQ(result.value("settled", ""), "idle") << result.dump();

  // Ctrl+Enter, then Cmd+Enter, in the text box: each translates what it holds.
  auto translator = eval::Translator::load(trained_seq2seq_run().string());
  for (const auto& [how, sentence] : {std::pair{"ctrl", "I do not drink tea."}, std::pair{"meta", "i am hungry"}}) {
    SCOPED_TRACE(how);
    const auto seen = field(field(result, "submit"), how);
    EXPECT_TRUE(seen.value("prevented", false)) << "the key also typed a new line";
    EXPECT_EQ(seen.value("state", ""), "done") << seen.dump();
    EXPECT_EQ(text(seen, "source"), sentence) << "nothing translated";
    EXPECT_EQ(text(seen, "translation"), translator.translate(std::vector<std::string>{sentence}).at(0).text);
  }

  // A sentence of 60 words, more than the model was trained on: translated, with a note that
  // says how; the sentence, its translation and the note run across the row in a few lines
  // (not a word a line in a narrow column).
  const auto long_sentence = field(result, "long");
  EXPECT_EQ(long_sentence.value("status", ""), "ok") << long_sentence.dump();
  EXPECT_NE(long_sentence.value("scoreText", "").find("more than the"), std::string::npos) << long_sentence.dump();
  const Box item = box_of(field(long_sentence, "item")), source = box_of(field(long_sentence, "source")),
            translation = box_of(field(long_sentence, "translation")), score = box_of(field(long_sentence, "score"));
  const double line = long_sentence.value("lineHeight", 20.0);
  ASSERT_GT(item.right - item.left, 600) << describe(item);
  for (const auto& [what, part] :
       {std::pair{"source", source}, std::pair{"translation", translation}, std::pair{"note", score}}) {
    SCOPED_TRACE(what);
    EXPECT_GE(part.right - part.left, 0.6 * (item.right - item.left)) << describe(part) << " in " << describe(item);
    EXPECT_LE(part.bottom - part.top, 6 * line) << describe(part);
    EXPECT_TRUE(inside(part, item)) << describe(part) << describe(item);
  }
}

TEST(ServerPageInteraction, ChromiumViTPageHasALegendASampleTheArrowKeysAndClearsAFailedUpload) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  // The sample is a small grey image of Fashion-MNIST's size.
  const auto sample_png = util::read_file(testing::source_dir() + "/apps/server_page/sample.png");
  EXPECT_LT(sample_png.size(), 2048u);
  const DecodedPng sample = decode_png(sample_png);
  ASSERT_EQ(sample.width, 28);
  ASSERT_EQ(sample.height, 28);
  ASSERT_EQ(sample.channels, 1);

  const auto run = train_tiny_vit_run("server_page_vit_keys", 1);
  auto classifier = eval::ImageClassifier::load(run.string());
  const auto expected = classifier.classify(sample.pixels);

  const auto dir = fresh_temp_dir("server_page_vit_keys");
  ChildProcesses children;
  PageServer server(children, dir, run.string(), page_with_probe(dir).string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  // The page opened on the sample (/?image=); then the readout, a failed upload, and a click
  // on the sample button.
  const auto result = probe_result(chromium(
      children, dir, "vit_probe", server.url() + "/?image=sample.png&probe=vit,upload_fails,sample", "--dump-dom"));
  ASSERT_EQ(result.value("settled", ""), "done") << result.dump();

  const auto vit = field(result, "vit");
  ASSERT_TRUE(vit.is_object() && !vit.contains("error")) << vit.dump();
  EXPECT_TRUE(box_of(field(vit, "sample")).visible) << "the sample button";
  EXPECT_EQ(vit.value("sampleWidth", 0), 28) << "the sample's picture loaded";

  // The colour scale of the attention maps: the library's viridis stops, and what they mean.
  EXPECT_TRUE(box_of(field(vit, "legend")).visible) << field(vit, "legend").dump();
  std::istringstream stops(vit.value("stops", ""));
  int count = 0;
  for (std::string stop; stops >> stop; ++count) {
    const auto c = util::color_at(util::ColorMap::kViridis, count / 8.0);
    char hex[8];
    std::snprintf(hex, sizeof(hex), "#%02x%02x%02x", c.r, c.g, c.b);
    EXPECT_EQ(stop, hex) << "stop " << count;
  }
  EXPECT_EQ(count, 9);
  EXPECT_NE(vit.value("caption", "").find("largest"), std::string::npos) << vit.value("caption", "");

  // The first head's map, focused: right, down, down; then the pointer over its last patch.
  const int grid = vit.value("grid", 0);
  ASSERT_GE(grid, 3);
  const auto values = numbers(vit.value("values", ""));
  ASSERT_EQ(values.size(), static_cast<std::size_t>(grid * grid));
  const auto expect_patch_text = [&](const std::string& said, int r, int c) {
    expect_weight_text(said,
                       "layer 1 head 1, patch row " + std::to_string(r + 1) + " column " + std::to_string(c + 1) + ": ",
                       values[r * grid + c]);
  };
  const std::vector<std::pair<int, int>> cells = {{0, 1}, {1, 1}, {2, 1}};
  const auto keys = field(vit, "keys");
  ASSERT_EQ(keys.size(), cells.size()) << keys.dump();
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const auto& seen = keys[k];
    SCOPED_TRACE("key " + std::to_string(k) + " " + seen.value("key", ""));
    EXPECT_TRUE(seen.value("prevented", false)) << "the arrow key scrolled the page instead";
    const auto [r, c] = cells[k];
    EXPECT_EQ(text(seen, "highlight"), std::to_string(r) + "," + std::to_string(c));
    expect_patch_text(text(seen, "text"), r, c);
    const Box cell = box_of(field(seen, "cell"));
    expect_readout_at(seen, cell, cell);
  }
  {
    SCOPED_TRACE("hover");
    const auto seen = field(vit, "hover");
    expect_patch_text(text(seen, "text"), grid - 1, grid - 1);
    expect_readout_at(seen, point(field(seen, "pointer")), box_of(field(seen, "cell")));
  }

  // A file that is not an image, after the sample's answer: that answer goes, the error shows.
  const auto failed = field(result, "upload_fails");
  EXPECT_TRUE(box_of(field(field(failed, "before"), "result")).visible) << failed.dump();
  EXPECT_EQ(failed.value("state", ""), "error") << failed.dump();
  EXPECT_FALSE(box_of(field(failed, "result")).visible)
      << "the previous image's answer is still shown: " << failed.dump();
  EXPECT_EQ(failed.value("class", "?"), "");
  EXPECT_EQ(failed.value("maps", -1), 0);
  EXPECT_TRUE(failed.value("statusIsError", false));
  EXPECT_NE(failed.value("status", "").find("notes.png"), std::string::npos) << failed.value("status", "");

  // One click on the sample classifies it as the library does.
  const auto clicked = field(result, "sample");
  EXPECT_EQ(clicked.value("state", ""), "done") << clicked.dump();
  EXPECT_EQ(clicked.value("class", ""), classifier.class_names()[expected.predicted]) << clicked.dump();
  EXPECT_TRUE(box_of(field(clicked, "result")).visible) << clicked.dump();
}

}  // namespace
}  // namespace dls::test::server_page_interaction
