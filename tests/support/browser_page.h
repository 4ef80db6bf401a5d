// translate_server's page in headless Chromium, for the browser tests
// (tests/apps/server_page_test.cpp, server_page_interaction_test.cpp): the server on a free
// loopback port, a browser that dumps the page's DOM or takes a screenshot, and what is read
// from the dump (elements' text and attributes, the heat maps' canvases). A test that acts on
// the page as a user would serves a copy with tests/apps/server_page_probe.js added
// (page_with_probe) and reads what the probe measured (probe_result).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/eval/translator.h"
#include "dls/util/file_io.h"
#include "support/child_processes.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"

namespace dls::test::browser {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr int kWidth = 1200, kHeight = 2000;  // the browser's window, CSS pixels at scale 1

// &amp; &lt; &gt; &quot; &#39; and &nbsp; of Chromium's serialised DOM, back to text.
inline std::string unescape_html(std::string s) {
  static const std::vector<std::pair<std::string, std::string>> entities = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&nbsp;", "\xC2\xA0"}, {"&amp;", "&"}};
  for (const auto& [entity, text] : entities) {
    for (std::size_t at = 0; (at = s.find(entity, at)) != std::string::npos; at += text.size()) {
      s.replace(at, entity.size(), text);
    }
  }
  return s;
}

// The attributes of an element's start tag.
inline std::map<std::string, std::string> attributes(const std::string& tag) {
  static const std::regex attribute(R"(([a-z][a-z0-9-]*)="([^"]*)\")");
  std::map<std::string, std::string> found;
  for (std::sregex_iterator it(tag.begin(), tag.end(), attribute), end; it != end; ++it) {
    found[(*it)[1]] = unescape_html((*it)[2]);
  }
  return found;
}

// The text of the element with `id` (no child elements inside), or "" when absent.
inline std::string text_of_id(const std::string& dom, const std::string& id) {
  std::smatch m;
  const std::regex element("id=\"" + id + "\"[^>]*>([^<]*)<");
  return std::regex_search(dom, m, element) ? unescape_html(m[1]) : "";
}

inline std::vector<float> numbers(const std::string& text) {
  std::vector<float> values;
  std::istringstream in(text);
  for (float v; in >> v;) values.push_back(v);
  return values;
}

// "%20" and friends for a query string.
inline std::string url_encoded(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += {'%', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}

// A file's text, "" while it does not exist yet (a child that has not opened its output).
inline std::string text_if_any(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error) ? util::read_file(path.string()) : "";
}

// translate_server on a free port of 127.0.0.1 serving `run` (the tiny seq2seq run unless
// given), with the page from the source tree (or `page_dir`).
class PageServer {
 public:
  PageServer(ChildProcesses& children, const fs::path& dir, const std::string& run = "",
             const std::string& page_dir = "")
      : children_(children) {
    const std::vector<std::string> argv = {testing::binary_dir() + "/apps/translate_server",
                                           run.empty() ? trained_seq2seq_run().string() : run,
                                           "--port",
                                           "0",
                                           "--threads",
                                           "1",
                                           "--page-dir",
                                           page_dir.empty() ? testing::source_dir() + "/apps/server_page" : page_dir};
    index_ = children_.start(argv, {}, dir, "server");
    const std::regex listening(R"(listening on (http://127\.0\.0\.1:[0-9]+))");
    const auto deadline = std::chrono::steady_clock::now() + seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string said = log();
      std::smatch m;
      if (std::regex_search(said, m, listening)) {
        url_ = m[1];
        return;
      }
      if (exited()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // Whether the server has exited (a zombie not yet reaped: ChildProcesses reaps it).
  bool exited() const {
    std::string stat;
    try {
      stat = util::read_file("/proc/" + std::to_string(children_[index_].pid) + "/stat");
    } catch (const std::exception&) {
      return true;
    }
    const auto close = stat.rfind(')');
    return close == std::string::npos || stat.compare(close + 2, 1, "Z") == 0;
  }
  const std::string& url() const { return url_; }  // "" when it did not start
  std::string log() const { return text_if_any(children_[index_].out) + text_if_any(children_[index_].err); }

 private:
  ChildProcesses& children_;
  std::size_t index_ = 0;
  std::string url_;
};

// Headless Chromium on `url` with `what` (--dump-dom, --screenshot=FILE); its own profile in
// `dir`, loopback only, killed after 90 s. Returns its standard output.
inline std::string chromium(ChildProcesses& children, const fs::path& dir, const std::string& name,
                            const std::string& url, const std::string& what) {
  const std::vector<std::string> argv = {"/usr/bin/chromium",
                                         "--headless",
                                         "--no-sandbox",
                                         "--disable-gpu",
                                         "--no-first-run",
                                         "--disable-extensions",
                                         "--disable-background-networking",
                                         "--disable-component-update",
                                         "--disable-sync",
                                         "--user-data-dir=" + (dir / (name + "_profile")).string(),
                                         "--window-size=" + std::to_string(kWidth) + "," + std::to_string(kHeight),
                                         "--hide-scrollbars",
                                         "--force-device-scale-factor=1",
                                         "--force-color-profile=srgb",
                                         "--virtual-time-budget=60000",
                                         what,
                                         url};
  const auto i = children.start(argv, {"HOME=" + dir.string()}, dir, name);
  const bool exited = children.wait(i, seconds(90));
  EXPECT_TRUE(exited) << "chromium " << what << " ran past 90 s";
  EXPECT_EQ(children[i].exit_code, 0) << children[i].stderr_text();
  return children[i].stdout_text();
}

struct HeatMap {
  std::map<std::string, std::string> at;  // its canvas's attributes
  int number(const std::string& key) const { return at.count(key) != 0 ? std::stoi(at.at(key)) : -1; }
};

inline std::vector<HeatMap> heat_maps(const std::string& dom) {
  static const std::regex canvas(R"(<canvas class="heatmap"[^>]*>)");
  std::vector<HeatMap> maps;
  for (std::sregex_iterator it(dom.begin(), dom.end(), canvas), end; it != end; ++it) {
    maps.push_back({attributes(it->str())});
  }
  return maps;
}

// The expected attention: the library's, for the checkpoint_eval translation of `sentence`
// by the tiny run.
inline eval::TranslationAttention library_attention(const std::string& sentence) {
  auto translator = eval::Translator::load(trained_seq2seq_run().string());
  return translator.attention(translator.translate(sentence));
}

// A copy of the page (apps/server_page) in dir/page with the probe added after its scripts:
// /?probe=SCENARIO,... then acts on the page and reports (tests/apps/server_page_probe.js).
inline fs::path page_with_probe(const fs::path& dir) {
  const auto page = dir / "page";
  fs::copy(testing::source_dir() + "/apps/server_page", page, fs::copy_options::recursive);
  fs::copy_file(testing::source_dir() + "/tests/apps/server_page_probe.js", page / "probe.js");
  std::string html = util::read_file((page / "index.html").string());
  const auto end = html.rfind("</body>");
  if (end == std::string::npos) {
    ADD_FAILURE() << "index.html has no </body>";
    return page;
  }
  html.insert(end, "<script src=\"probe.js\"></script>\n");
  util::write_text_atomically((page / "index.html").string(), html);
  return page;
}

// What the probe wrote into a dumped DOM (an empty object, and a test failure, when nothing).
inline nlohmann::json probe_result(const std::string& dom) {
  const std::string text = text_of_id(dom, "probe-result");
  if (dom.find("data-probe=\"done\"") == std::string::npos || text.empty()) {
    ADD_FAILURE() << "the probe did not finish: " << dom.substr(0, 3000);
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(text);
}

}  // namespace dls::test::browser
