// translate_server's page (apps/server_page) in headless Chromium, as a user opens it: the
// server on a free loopback port with a tiny trained run, the page opened at
// /?sentence=...; the translation it shows is checkpoint_eval --translate's, every heat map
// (kind x layer x head) is drawn with the attention the library computes, and in a
// screenshot the cells have the colours of the library's colour scale for their weights.
// Serving a tiny ViT run, the page opened at /?image=FILE classifies that image as the
// library does and draws the class token's attention of every layer and head over it. Asked
// to copy unknown words, it shows the translation the library gives with --replace-unk.
#include <gtest/gtest.h>

#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "dls/eval/image_classifier.h"
#include "dls/eval/translator.h"
#include "dls/eval/vit_evaluation.h"
#include "dls/util/canvas.h"
#include "dls/util/colormap.h"
#include "dls/util/file_io.h"
#include "support/browser_page.h"
#include "support/child_processes.h"
#include "support/outside_needs.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "support/vit_runs.h"
#include "support/test_paths.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

// A namespace of its own: the tests are compiled in unity batches.
namespace dls::test::server_page {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

using namespace browser;

TEST(ServerPage, ChromiumShowsTheTranslationAndDrawsEveryHeatMap) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const auto started = std::chrono::steady_clock::now();
  const std::string sentence = "I do not drink tea.";
  const auto eval = run_program("apps/checkpoint_eval",
                                "--threads 1 " + trained_seq2seq_run().string() + " --translate \"" + sentence + "\"",
                                "server_page_eval");
  ASSERT_EQ(eval.status, 0) << eval.err;
  const std::string expected = eval.out.substr(0, eval.out.find('\n'));
  ASSERT_FALSE(expected.empty());

  const auto dir = fresh_temp_dir("server_page");
  ChildProcesses children;  // the server and every browser, killed however the test ends
  PageServer server(children, dir);
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const std::string page = server.url() + "/?sentence=" + url_encoded(sentence);

  // The DOM once the page says it is done: the translation, and one drawn map per kind,
  // layer and head with the library's attention weights; the pointer over a cell of the
  // second head's cross-attention (&hover=) says its tokens and weight.
  const std::string dom = chromium(children, dir, "dom", page + "&hover=cross:0:1:1:2", "--dump-dom");
  ASSERT_NE(dom.find("data-state=\"done\""), std::string::npos)
      << "the page did not finish: " << dom.substr(0, 2000) << "\nserver: " << server.log();
  EXPECT_EQ(text_of_id(dom, "translation-0"), expected);
  EXPECT_NE(dom.find("data-model=\"loaded\""), std::string::npos) << "the header has the model's description";
  EXPECT_EQ(text_of_id(dom, "page-title"), "dlstudio-cpp translator: English \xE2\x86\x92 Spanish");
  EXPECT_NE(dom.find("placeholder=\"i am hungry"), std::string::npos) << "an English source: the example sentences";

  const auto attention = library_attention(sentence);
  const auto maps = heat_maps(dom);
  const struct {
    std::string kind;
    const std::vector<torch::Tensor>& layers;
  } kinds[] = {
      {"encoder_self", attention.encoder_self}, {"decoder_self", attention.decoder_self}, {"cross", attention.cross}};
  std::size_t expected_maps = 0;
  for (const auto& kind : kinds) {
    for (std::size_t layer = 0; layer < kind.layers.size(); ++layer) {
      const auto weights = kind.layers[layer].contiguous();  // [H, rows, cols]
      for (int head = 0; head < weights.size(0); ++head, ++expected_maps) {
        SCOPED_TRACE(kind.kind + " layer " + std::to_string(layer) + " head " + std::to_string(head));
        const HeatMap* map = nullptr;
        for (const auto& m : maps) {
          if (m.at.count("data-kind") && m.at.at("data-kind") == kind.kind && m.number("data-layer") == int(layer) &&
              m.number("data-head") == head) {
            map = &m;
          }
        }
        ASSERT_NE(map, nullptr) << "no heat map drawn";
        EXPECT_EQ(map->at.at("data-drawn"), "1");
        const auto head_weights = weights[head];  // [rows, cols]
        ASSERT_EQ(map->number("data-rows"), head_weights.size(0));
        ASSERT_EQ(map->number("data-cols"), head_weights.size(1));
        const auto values = numbers(map->at.at("data-values"));
        ASSERT_EQ(values.size(), static_cast<std::size_t>(head_weights.numel()));
        const auto drawn = torch::tensor(values).view_as(head_weights);
        EXPECT_TRUE(torch::allclose(drawn, head_weights, 0, 2e-3)) << (drawn - head_weights).abs().max().item<float>();
      }
    }
  }
  EXPECT_EQ(maps.size(), expected_maps);
  EXPECT_EQ(expected_maps, 3u * 1 * 2) << "the tiny run: one layer of each, two heads";

  const std::string hover = text_of_id(dom, "tooltip");
  const std::string tokens = attention.written.at(1) + " \xE2\x86\x92 " + attention.source.at(2) + ": ";
  ASSERT_EQ(hover.substr(0, tokens.size()), tokens) << hover;
  EXPECT_NEAR(std::stod(hover.substr(tokens.size())), attention.cross[0][1][1][2].item<double>(), 2e-3) << hover;

  // The legend's colour scale is the library's viridis (the PNG heat maps' colours).
  static const std::regex legend_stops(R"re(<canvas id="legend"[^>]*data-stops="([^"]*)")re");
  std::smatch stops_match;
  ASSERT_TRUE(std::regex_search(dom, stops_match, legend_stops)) << "the legend exposes its colour stops";
  std::istringstream stops(stops_match[1].str());
  std::string stop;
  for (int i = 0; stops >> stop; ++i) {
    const auto c = util::color_at(util::ColorMap::kViridis, i / 8.0);
    char hex[8];
    std::snprintf(hex, sizeof(hex), "#%02x%02x%02x", c.r, c.g, c.b);
    EXPECT_EQ(stop, hex) << "stop " << i;
  }

  // The screenshot: the centre of a few cells of each map, where the DOM says it drew them,
  // has the colour of the cell's weight (within 3 per channel: rounding, colour conversion).
  const auto shot = dir / "page.png";
  chromium(children, dir, "screenshot", page, "--screenshot=" + shot.string());
  ASSERT_TRUE(fs::exists(shot)) << "no screenshot";
  const DecodedPng png = decode_png(util::read_file(shot.string()));
  ASSERT_EQ(png.width, kWidth);
  ASSERT_GE(png.channels, 3);
  int cells_checked = 0;
  for (const auto& map : maps) {
    const int x0 = map.number("data-x") + map.number("data-origin-x");
    const int y0 = map.number("data-y") + map.number("data-origin-y");
    const int cell = map.number("data-cell"), rows = map.number("data-rows"), cols = map.number("data-cols");
    const auto values = numbers(map.at.at("data-values"));
    const double scale_max = std::stod(map.at.at("data-scale-max"));
    for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {rows - 1, cols - 1}, {rows / 2, cols / 2}}) {
      const int x = x0 + j * cell + cell / 2, y = y0 + i * cell + cell / 2;
      if (x >= png.width || y >= png.height) continue;  // below the window
      const auto want = util::color_at(util::ColorMap::kViridis, values[i * cols + j] / scale_max);
      const auto* got = &png.pixels[(static_cast<std::size_t>(y) * png.width + x) * png.channels];
      SCOPED_TRACE(map.at.at("data-title") + " cell " + std::to_string(i) + "," + std::to_string(j));
      EXPECT_NEAR(got[0], want.r, 3);
      EXPECT_NEAR(got[1], want.g, 3);
      EXPECT_NEAR(got[2], want.b, 3);
      ++cells_checked;
    }
  }
  EXPECT_GE(cells_checked, 12) << "the maps lie in the window";

  // A sentence with a word the model does not know, beam search: marked, and translated as
  // checkpoint_eval --beam 3 translates it.
  const std::string unknown = "I do not drink zyxwv.";
  const auto beam =
      run_program("apps/checkpoint_eval",
                  "--threads 1 " + trained_seq2seq_run().string() + " --beam 3 --translate \"" + unknown + "\"",
                  "server_page_beam");
  ASSERT_EQ(beam.status, 0) << beam.err;
  const std::string beam_dom =
      chromium(children, dir, "dom_beam", server.url() + "/?beam=3&sentence=" + url_encoded(unknown), "--dump-dom");
  ASSERT_NE(beam_dom.find("data-state=\"done\""), std::string::npos) << beam_dom.substr(0, 2000);
  EXPECT_EQ(text_of_id(beam_dom, "translation-0"), beam.out.substr(0, beam.out.find('\n')));
  EXPECT_TRUE(std::regex_search(beam_dom, std::regex(R"(<mark class="unknown"[^>]*>zyxwv</mark>)")))
      << "the unknown word is marked";
  EXPECT_NE(beam_dom.find("Beam search, width 3"), std::string::npos);

  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(took, 240) << "the browser test is bounded";
}

// The attributes of the first start tag that matches `pattern` (a regular expression).
std::map<std::string, std::string> tag_attributes(const std::string& dom, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(dom, m, std::regex(pattern)) ? attributes(m.str()) : std::map<std::string, std::string>{};
}

// A run trained Spanish -> English (--reverse): the page names that pair with the server's
// names (title, heading, the header's summary, the text box's label and placeholder) and marks
// the source sentence and its translation with their languages.
// DLStudio's flattened layout attends to the padding, and its decoder to the zeroed positions
// after a row's own: a layer whose rows give weight to keys not drawn gets a last column
// "(rest)" holding it, as the PNG maps do, so that each row sums to 1.
TEST(ServerPage, ChromiumDrawsTheRestOfDLStudiosLayoutAsALastColumn) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const auto& run = seq2seq_run_in_layout(Layout::kDLStudio);
  const std::string sentence = "I do not drink tea.";
  auto translator = eval::Translator::load(run.string());
  const auto attention = translator.attention(translator.translate(sentence));
  const auto weights = attention.decoder_self.at(0)[0];    // [rows, cols]
  const auto rest = attention.decoder_self_rest.at(0)[0];  // [rows]
  ASSERT_GT(rest.max().item<double>(), 0.005) << "the zeroed positions DLStudio's decoder attends to";

  const auto dir = fresh_temp_dir("server_page_rest");
  ChildProcesses children;
  PageServer server(children, dir, run.string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const std::string dom =
      chromium(children, dir, "dom", server.url() + "/?sentence=" + url_encoded(sentence), "--dump-dom");
  ASSERT_NE(dom.find("data-state=\"done\""), std::string::npos) << dom.substr(0, 2000);
  const auto maps = heat_maps(dom);
  const HeatMap* map = nullptr;
  for (const auto& m : maps) {
    if (m.at.count("data-kind") && m.at.at("data-kind") == "decoder_self" && m.number("data-layer") == 0 &&
        m.number("data-head") == 0)
      map = &m;
  }
  ASSERT_NE(map, nullptr) << "no decoder self-attention map";
  EXPECT_EQ(map->at.count("data-rest") ? map->at.at("data-rest") : "", "1");
  ASSERT_EQ(map->number("data-rows"), weights.size(0));
  ASSERT_EQ(map->number("data-cols"), weights.size(1) + 1);
  const auto values = numbers(map->at.at("data-values"));
  ASSERT_EQ(values.size(), static_cast<std::size_t>(weights.size(0) * (weights.size(1) + 1)));
  const auto drawn = torch::tensor(values).view({weights.size(0), weights.size(1) + 1});
  const auto expected = torch::cat({weights, rest.unsqueeze(1)}, 1).to(torch::kFloat);
  EXPECT_TRUE(torch::allclose(drawn, expected, 0, 2e-3)) << (drawn - expected).abs().max().item<float>();
  EXPECT_TRUE(torch::allclose(drawn.sum(1), torch::ones({weights.size(0)}), 0, 1e-2)) << drawn.sum(1);
  EXPECT_NE(dom.find("The last column, (rest): the weight on keys not drawn"), std::string::npos);
}

TEST(ServerPage, ChromiumNamesTheLanguagesOfAReversedRun) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const auto dir = fresh_temp_dir("server_page_reversed");
  ChildProcesses children;
  PageServer server(children, dir, reversed_seq2seq_run().string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const std::string dom =
      chromium(children, dir, "reversed_dom", server.url() + "/?sentence=" + url_encoded("¿Dónde está la estación?"),
               "--dump-dom");
  ASSERT_NE(dom.find("data-state=\"done\""), std::string::npos)
      << "the page did not finish: " << dom.substr(0, 2000) << "\nserver: " << server.log();
  const std::string pair = "Spanish \xE2\x86\x92 English";
  EXPECT_NE(dom.find("<title>dlstudio-cpp translator: " + pair + "</title>"), std::string::npos) << dom.substr(0, 800);
  EXPECT_EQ(text_of_id(dom, "page-title"), "dlstudio-cpp translator: " + pair);
  EXPECT_NE(text_of_id(dom, "model-summary").find(" \xC2\xB7 " + pair + " \xC2\xB7 "), std::string::npos)
      << text_of_id(dom, "model-summary");
  EXPECT_EQ(text_of_id(dom, "source-language"), "Spanish");
  const auto box = tag_attributes(dom, "<textarea[^>]*id=\"sentences\"[^>]*>");
  EXPECT_EQ(box.count("lang") ? box.at("lang") : "", "es");
  EXPECT_EQ(box.count("placeholder") ? box.at("placeholder") : "", "Spanish sentences, one per line");
  EXPECT_EQ(tag_attributes(dom, "<span class=\"source-text\"[^>]*>")["lang"], "es");
  EXPECT_EQ(tag_attributes(dom, "<span[^>]*id=\"translation-0\"[^>]*>")["lang"], "en");
  for (const auto* english_spanish : {"English \xE2\x86\x92 Spanish", "i am hungry"}) {
    EXPECT_EQ(dom.find(english_spanish), std::string::npos) << english_spanish;
  }
}

// "Copy unknown words from the source" (&replace_unk=1 ticks it): the page shows the
// translation with each <unk> replaced as the library replaces it, in the list and above the
// attention maps; without it, the model's own.
TEST(ServerPage, ChromiumCopiesUnknownWordsWhenAsked) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  const std::string sentence = "I eat the bread.";
  const auto run = small_vocabulary_seq2seq_run().string();
  auto translator = eval::Translator::load(run);
  eval::DecodeOptions replacing;
  replacing.replace_unknown = true;
  const auto plain = translator.translate({sentence}).front();
  const auto copied = translator.translate({sentence}, replacing).front();
  ASSERT_NE(plain.text, copied.text) << "the 30-word run writes an <unk> here";

  const auto dir = fresh_temp_dir("server_page_replace_unk");
  ChildProcesses children;
  PageServer server(children, dir, run);
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  for (const bool replace : {true, false}) {
    const std::string dom = chromium(
        children, dir, replace ? "replaced" : "plain",
        server.url() + "/?" + (replace ? "replace_unk=1&" : "") + "sentence=" + url_encoded(sentence), "--dump-dom");
    ASSERT_NE(dom.find("data-state=\"done\""), std::string::npos)
        << "the page did not finish: " << dom.substr(0, 2000) << "\nserver: " << server.log();
    EXPECT_EQ(text_of_id(dom, "translation-0"), replace ? copied.text : plain.text);
    EXPECT_EQ(text_of_id(dom, "timings").find("unknown words copied from the source") != std::string::npos, replace)
        << text_of_id(dom, "timings");
    // The attention panel's heading: the same translation (/attention asked with the choice).
    const std::string heading = text_of_id(dom, "attention-sentence");
    const std::string quoted = "\xE2\x80\x9C" + (replace ? copied.text : plain.text) + "\xE2\x80\x9D";  // “...”
    ASSERT_GE(heading.size(), quoted.size()) << heading;
    EXPECT_EQ(heading.substr(heading.size() - quoted.size()), quoted) << heading;
  }
}

// The ViT maps of a dumped DOM: <canvas class="vit-map" ...> with their attributes.
std::vector<HeatMap> vit_maps(const std::string& dom) {
  static const std::regex canvas(R"(<canvas class="vit-map"[^>]*>)");
  std::vector<HeatMap> maps;
  for (std::sregex_iterator it(dom.begin(), dom.end(), canvas), end; it != end; ++it) {
    maps.push_back({attributes(it->str())});
  }
  return maps;
}

TEST(ServerPage, ChromiumClassifiesAnImageAndDrawsEveryViTAttentionMap) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/chromium");
  // A tiny Fashion-MNIST run (28x28 grey, 4x4 patches, 1 layer of 2 heads), one epoch.
  const auto run = train_tiny_vit_run("server_page_vit", 1);

  // The page's files and a test image beside them (/?image=image.png fetches it).
  const auto dir = fresh_temp_dir("server_page_vit");
  const auto page_dir = dir / "page";
  fs::copy(testing::source_dir() + "/apps/server_page", page_dir, fs::copy_options::recursive);
  auto classifier = eval::ImageClassifier::load(run.string());
  const auto test_set = eval::load_test_images(classifier.contents(), {});
  util::Canvas image(test_set.width, test_set.height);
  const auto* pixels = test_set.image(0);
  for (int y = 0; y < test_set.height; ++y)
    for (int x = 0; x < test_set.width; ++x) {
      const auto v = pixels[y * test_set.width + x];
      image.set_pixel(x, y, util::Rgb{v, v, v});
    }
  image.save_png((page_dir / "image.png").string());
  const auto expected = classifier.classify(std::vector<std::uint8_t>(pixels, pixels + test_set.image_bytes()));

  ChildProcesses children;
  PageServer server(children, dir, run.string(), page_dir.string());
  ASSERT_FALSE(server.url().empty()) << "translate_server did not say where it listens: " << server.log();
  const std::string dom = chromium(children, dir, "vit_dom", server.url() + "/?image=image.png", "--dump-dom");
  ASSERT_NE(dom.find("data-state=\"done\""), std::string::npos)
      << "the page did not finish: " << dom.substr(0, 3000) << "\nserver: " << server.log();
  EXPECT_NE(dom.find("data-kind=\"vit\""), std::string::npos);
  EXPECT_EQ(text_of_id(dom, "vit-class"), classifier.class_names()[expected.predicted]);

  const auto maps = vit_maps(dom);
  std::size_t heads = 0;
  for (std::size_t layer = 0; layer < expected.attention.size(); ++layer) {
    for (std::size_t head = 0; head < expected.attention[layer].size(); ++head, ++heads) {
      SCOPED_TRACE("layer " + std::to_string(layer) + " head " + std::to_string(head));
      const HeatMap* map = nullptr;
      for (const auto& m : maps) {
        if (m.number("data-layer") == int(layer) && m.number("data-head") == int(head)) map = &m;
      }
      ASSERT_NE(map, nullptr) << "no heat map drawn";
      EXPECT_EQ(map->at.at("data-drawn"), "1");
      const auto values = numbers(map->at.at("data-values"));
      const auto& want = expected.attention[layer][head];
      ASSERT_EQ(values.size(), want.size());
      for (std::size_t p = 0; p < want.size(); ++p) EXPECT_NEAR(values[p], want[p], 2e-3) << "patch " << p;
    }
  }
  EXPECT_EQ(heads, 2u) << "the tiny run: one layer of two heads";
  EXPECT_EQ(maps.size(), heads + 1) << "and the rollout";

  // The screenshot for docs/serving_page.md's ViT picture; it must at least exist.
  const auto shot = dir / "vit_page.png";
  chromium(children, dir, "vit_screenshot", server.url() + "/?image=image.png", "--screenshot=" + shot.string());
  EXPECT_TRUE(fs::exists(shot)) << "no screenshot";
}

}  // namespace
}  // namespace dls::test::server_page
