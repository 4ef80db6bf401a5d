// The corpus a training program reads when --data is not given, found by the rule that
// `make data` (data/fetch_data.sh) and apps/demo.sh use: the folder is $DLS_DATA_DIR when
// set, else `make data`'s default ${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp. An empty
// variable counts as unset, as in the shell's ${VAR:-default}.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace dls::apps {

// For --data's help: where the default corpus is looked for.
inline constexpr char kDefaultCorpusHelp[] =
    "default: $DLS_DATA_DIR/spa-eng/spa.txt, else the folder `make data` fills, "
    "${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp/spa-eng/spa.txt";

// Adds where the default corpus is looked for to --data's help (its declaration says what it reads).
inline void mention_default_corpus(CLI::App& app) {
  auto* data = app.get_option("--data");
  data->description(data->get_description() + "; " + kDefaultCorpusHelp);
}

namespace default_corpus_detail {
inline const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}
}  // namespace default_corpus_detail

// The folder of the real data: $DLS_DATA_DIR, else $XDG_DATA_HOME/dlstudio-cpp, else
// $HOME/.local/share/dlstudio-cpp; empty when none of the three is set.
inline std::filesystem::path default_data_dir() {
  using default_corpus_detail::env;
  if (const char* dir = env("DLS_DATA_DIR")) return dir;
  if (const char* xdg = env("XDG_DATA_HOME")) return std::filesystem::path(xdg) / "dlstudio-cpp";
  if (const char* home = env("HOME")) return std::filesystem::path(home) / ".local" / "share" / "dlstudio-cpp";
  return {};
}

// vit_train's images: --image-folder DIR is --dataset image-folder --data-dir DIR, and a new
// run's CIFAR-10 without --data-dir is read where `make data` puts it (default_data_dir()/
// cifar10, data/fetch_data.sh) when it is there.
inline void default_image_data(std::string& dataset, std::string& data_dir, const std::string& image_folder,
                               bool resuming) {
  if (!image_folder.empty()) dataset = "image-folder", data_dir = image_folder;
  const auto fetched_cifar = default_data_dir() / "cifar10";
  std::error_code error;
  if (dataset == "cifar10" && data_dir.empty() && !resuming && std::filesystem::exists(fetched_cifar, error))
    data_dir = fetched_cifar.string();
}

// default_data_dir()/spa-eng/spa.txt when that file exists, else "". No fallback: with
// DLS_DATA_DIR set, only that folder is looked in.
inline std::string default_corpus() {
  const auto dir = default_data_dir();
  if (dir.empty()) return "";
  const auto path = dir / "spa-eng" / "spa.txt";
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) ? path.string() : "";
}

// The one-line error when there is no --data and no default corpus: where it was looked
// for, and how to get it there (`make data`, DLS_DATA_DIR).
inline std::string no_corpus_message() {
  const auto dir = default_data_dir();
  if (dir.empty()) {
    return "no corpus: give --data FILE, or set DLS_DATA_DIR to a folder with spa-eng/spa.txt "
           "('DLS_DATA_DIR=DIR make data' downloads the Tatoeba corpus there)";
  }
  const std::string where = ", which downloads the Tatoeba corpus to " + (dir / "spa-eng" / "spa.txt").string() +
                            " where this program looks for it";
  if (default_corpus_detail::env("DLS_DATA_DIR") != nullptr) {
    return "no corpus: give --data FILE, or run 'make data' with the same DLS_DATA_DIR" + where +
           " (or unset DLS_DATA_DIR to use make data's default folder)";
  }
  return "no corpus: give --data FILE, or run 'make data'" + where + " (DLS_DATA_DIR=DIR: in DIR instead)";
}

}  // namespace dls::apps
