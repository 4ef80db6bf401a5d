// data/data_folder.h: the programs find the real corpus by make data's rule
// ($DLS_DATA_DIR, else ${XDG_DATA_HOME:-$HOME/.local/share}/dlstudio-cpp), and the 'no corpus'
// error says how to get it.
#include "dls/data/data_folder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/program_run.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::data_folder_test {
namespace {

namespace fs = std::filesystem;

// Sets (or, with nullopt, unsets) the three variables for one test and restores them after.
class DataEnvironment {
 public:
  DataEnvironment(std::optional<std::string> dls_data_dir, std::optional<std::string> xdg_data_home,
                  std::optional<std::string> home) {
    set("DLS_DATA_DIR", dls_data_dir);
    set("XDG_DATA_HOME", xdg_data_home);
    set("HOME", home);
  }
  ~DataEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  DataEnvironment(const DataEnvironment&) = delete;
  DataEnvironment& operator=(const DataEnvironment&) = delete;

 private:
  void set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Writes dir/spa-eng/spa.txt; returns its path.
std::string put_corpus(const fs::path& dir) {
  fs::create_directories(dir / "spa-eng");
  test::write_bytes(dir / "spa-eng" / "spa.txt", "Go.\tVe.\n");
  return (dir / "spa-eng" / "spa.txt").string();
}

TEST(DefaultCorpus, DlsDataDirComesFirstWithoutFallback) {
  const auto root = test::fresh_temp_dir("default_corpus_first");
  const auto corpus = put_corpus(root / "home" / ".local" / "share" / "dlstudio-cpp");
  {
    const DataEnvironment env((root / "data").string(), std::nullopt, (root / "home").string());
    EXPECT_EQ(data::default_data_dir(), root / "data");
    EXPECT_EQ(data::default_corpus(), "") << "DLS_DATA_DIR set: make data's default folder is not looked in";
    put_corpus(root / "data");
    EXPECT_EQ(data::default_corpus(), (root / "data" / "spa-eng" / "spa.txt").string());
  }
  {
    const DataEnvironment env(std::string(), std::nullopt, (root / "home").string());
    EXPECT_EQ(data::default_corpus(), corpus) << "an empty DLS_DATA_DIR counts as unset, as in the shell";
  }
  test::remove_tree(root);
}

TEST(DefaultCorpus, MakeDataDefaultFolderWithoutDlsDataDir) {
  const auto root = test::fresh_temp_dir("default_corpus_make_data");
  {
    const DataEnvironment env(std::nullopt, std::nullopt, (root / "home").string());
    EXPECT_EQ(data::default_data_dir(), root / "home" / ".local" / "share" / "dlstudio-cpp");
    EXPECT_EQ(data::default_corpus(), "") << "no file there yet";
    const auto corpus = put_corpus(root / "home" / ".local" / "share" / "dlstudio-cpp");
    EXPECT_EQ(data::default_corpus(), corpus);
  }
  {
    const DataEnvironment env(std::nullopt, (root / "xdg").string(), (root / "home").string());
    EXPECT_EQ(data::default_data_dir(), root / "xdg" / "dlstudio-cpp");
    EXPECT_EQ(data::default_corpus(), "") << "XDG_DATA_HOME set: ~/.local/share is not looked in";
    const auto corpus = put_corpus(root / "xdg" / "dlstudio-cpp");
    EXPECT_EQ(data::default_corpus(), corpus);
  }
  {
    const DataEnvironment env(std::nullopt, std::nullopt, std::nullopt);
    EXPECT_TRUE(data::default_data_dir().empty());
    EXPECT_EQ(data::default_corpus(), "");
  }
  test::remove_tree(root);
}

TEST(DefaultCorpus, NoCorpusMessageIsOneLineNamingMakeDataAndDlsDataDir) {
  const auto root = test::fresh_temp_dir("default_corpus_message");
  auto check = [](const std::string& message, const std::string& folder) {
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("no corpus: give --data FILE", 0), 0u) << message;
    EXPECT_NE(message.find("make data"), std::string::npos) << message;
    EXPECT_NE(message.find("DLS_DATA_DIR"), std::string::npos) << message;
    EXPECT_NE(message.find(folder), std::string::npos) << message;
  };
  {
    const DataEnvironment env(std::nullopt, std::nullopt, (root / "home").string());
    check(data::no_corpus_message(),
          (root / "home" / ".local" / "share" / "dlstudio-cpp" / "spa-eng" / "spa.txt").string());
  }
  {
    const DataEnvironment env((root / "data").string(), std::nullopt, (root / "home").string());
    check(data::no_corpus_message(), (root / "data" / "spa-eng" / "spa.txt").string());
  }
  {
    const DataEnvironment env(std::nullopt, std::nullopt, std::nullopt);
    check(data::no_corpus_message(), "spa-eng/spa.txt");
  }
  test::remove_tree(root);
}

// The programs themselves: with no --data and no DLS_DATA_DIR they train on what `make data`
// put in the user's data folder, and without it they stop with that one line.
TEST(DefaultCorpus, ProgramsReadMakeDatasFolderByDefault) {
  const auto home = test::fresh_temp_dir("default_corpus_programs");
  const std::string env = "env -u DLS_DATA_DIR -u XDG_DATA_HOME -u DLS_LOG_LEVEL HOME=" + home.string() + " ";
  for (const std::string program : {"seq2seq_train", "lm_train"}) {
    SCOPED_TRACE(program);
    const auto none = test::run_program("apps/" + program, "--threads 1 --dry-run", "default_none_" + program, "", env);
    test::expect_one_line_error(none, "run 'make data'", 1);
  }
  const auto folder = home / ".local" / "share" / "dlstudio-cpp" / "spa-eng";
  fs::create_directories(folder);
  fs::copy_file(testing::sample_corpus(), folder / "spa.txt");
  for (const std::string program : {"seq2seq_train", "lm_train"}) {
    SCOPED_TRACE(program);
    const std::string split = program == "seq2seq_train" ? " --validation-pairs 150" : "";
    const auto run = test::run_program("apps/" + program, "--threads 1 --dry-run --log-level info" + split,
                                       "default_found_" + program, "", env);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.err.find((folder / "spa.txt").string()), std::string::npos) << run.err;
  }
  test::remove_tree(home);
}

}  // namespace
}  // namespace dls::data_folder_test
