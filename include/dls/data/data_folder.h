// Where the real data is, by the rule that `make data` (data/fetch_data.sh) and apps/demo.sh
// use: the folder is $DLS_DATA_DIR when set, else `make data`'s default
// ${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp. An empty variable counts as unset, as in the
// shell's ${VAR:-default}. The training programs read the corpus and CIFAR-10 there when no
// other is given.
#pragma once

#include <filesystem>
#include <string>

namespace dls::data {

// For --data's help: where the default corpus is looked for.
inline constexpr char kDefaultCorpusHelp[] =
    "default: $DLS_DATA_DIR/spa-eng/spa.txt, else the folder `make data` fills, "
    "${XDG_DATA_HOME:-~/.local/share}/dlstudio-cpp/spa-eng/spa.txt";

// The folder of the real data: $DLS_DATA_DIR, else $XDG_DATA_HOME/dlstudio-cpp, else
// $HOME/.local/share/dlstudio-cpp; empty when none of the three is set.
std::filesystem::path default_data_dir();

// default_data_dir()/spa-eng/spa.txt when that file exists, else "". No fallback: with
// DLS_DATA_DIR set, only that folder is looked in.
std::string default_corpus();

// The one-line error when there is no --data and no default corpus: where it was looked
// for, and how to get it there (`make data`, DLS_DATA_DIR).
std::string no_corpus_message();

// vit_train's images: --image-folder DIR is --dataset image-folder --data-dir DIR, and a new
// run's CIFAR-10 without --data-dir is read where `make data` puts it (default_data_dir()/
// cifar10) when it is there.
void default_image_data(std::string& dataset, std::string& data_dir, const std::string& image_folder, bool resuming);

}  // namespace dls::data
