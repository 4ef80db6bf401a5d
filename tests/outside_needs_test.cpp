// The one list of what the tests run from outside the project (tests/outside_needs.tsv)
// against the tests themselves: every /usr/bin program they name and every module their
// Python imports is listed; a test that runs a listed one declares it; the set-up installs
// every listed package; and the launch check catches a test that runs an undeclared one.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "support/outside_needs.h"
#include "support/test_paths.h"

namespace dls::test {
namespace {

namespace fs = std::filesystem;

// The tests' own files with `extension`, relative to the source folder; tests/fuzz is left
// out (make fuzz has its own set-up).
std::vector<fs::path> test_files(const std::set<std::string>& extensions) {
  std::vector<fs::path> files;
  const fs::path root = fs::path(testing::source_dir()) / "tests";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const auto relative = fs::relative(entry.path(), testing::source_dir());
    if (entry.is_regular_file() && extensions.count(entry.path().extension().string()) != 0 &&
        relative.string().rfind("tests/fuzz/", 0) != 0) {
      files.push_back(relative);
    }
  }
  return files;
}

std::string text_of(const fs::path& relative) {
  return util::read_file(testing::source_dir() + "/" + relative.string());
}

// The program names of the list, as a shell script writes them (python3, curl, ...).
std::vector<std::string> listed_program_names() {
  std::vector<std::string> names;
  for (const auto& need : outside_needs()) {
    if (need.kind == "program") names.push_back(fs::path(need.name).filename().string());
  }
  return names;
}

TEST(OutsideNeeds, ListIsWellFormed) {
  ASSERT_GE(outside_needs().size(), 4u);
  for (const auto& need : outside_needs()) {
    EXPECT_FALSE(need.package.empty()) << need.name;
    EXPECT_FALSE(need.why.empty()) << need.name;
    EXPECT_TRUE(need.kind == "program" || need.kind == "file" || need.kind == "python-module") << need.kind;
    if (need.kind == "program") {
      EXPECT_EQ(need.name.rfind("/usr/bin/", 0), 0u) << need.name << ": an absolute path";
    }
    if (need.kind == "file") {
      EXPECT_EQ(need.name.rfind("/usr/share/", 0), 0u) << need.name << ": an absolute path";
    }
  }
  EXPECT_NE(find_outside_need("torch"), nullptr);
  EXPECT_EQ(find_outside_need("tensorflow"), nullptr);
}

// `cmake/install_debian_deps.sh test --print` lists what `make test` installs.
TEST(OutsideNeeds, TheTestSetUpInstallsEveryListedPackage) {
  const auto out = fs::temp_directory_path() / ("dls_deps_" + std::to_string(::getpid()));
  const std::string command =
      "bash " + testing::source_dir() + "/cmake/install_debian_deps.sh test --print > " + out.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string printed = " " + util::read_file(out.string()) + " ";
  fs::remove(out);
  for (const auto& need : outside_needs()) {
    EXPECT_NE(printed.find(" " + need.package + " "), std::string::npos)
        << need.package << " (for " << need.name << ") is not installed by make test's set-up: " << printed;
  }
}

TEST(OutsideNeeds, EveryProgramTheTestsNameIsListed) {
  // A path that starts the word: not $prefix/bin/x.
  static const std::regex program(R"((^|[^A-Za-z0-9_$}./-])((/usr)?/bin/[A-Za-z0-9_.+-]+))");
  std::size_t files = 0;
  for (const auto& file : test_files({".cpp", ".h", ".sh", ".py", ".in"})) {
    ++files;
    if (file.filename() == "outside_needs_test.cpp") continue;  // names unlisted ones on purpose
    const std::string text = text_of(file);
    for (std::sregex_iterator it(text.begin(), text.end(), program), end; it != end; ++it) {
      if (is_base_program(it->str(2))) continue;
      EXPECT_NE(find_outside_need(it->str(2)), nullptr)
          << file << " names " << it->str(2) << ", which tests/outside_needs.tsv does not list";
    }
  }
  EXPECT_GT(files, 50u);
}

TEST(OutsideNeeds, EveryModuleTheTestsImportIsListed) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/python3");  // its standard library's module names
  const auto scripts = test_files({".py"});
  ASSERT_FALSE(scripts.empty());
  for (const auto& script : scripts) {
    SCOPED_TRACE(script.string());
    // Checked as a launch of the script would be, with every listed module declared.
    for (const auto& need : outside_needs()) {
      if (need.kind == "python-module") (void)require_outside({need.name});
    }
    check_launch({"/usr/bin/python3", testing::source_dir() + "/" + script.string()});
  }
}

// A C++ test that names a listed program declares what it uses; a shell test that runs one
// calls require_outside for it (tests/support/outside_needs.sh).
TEST(OutsideNeeds, TestsThatRunAListedProgramDeclareIt) {
  for (const auto& file : test_files({".cpp"})) {
    const std::string text = text_of(file);
    if (file.filename() == "outside_needs_test.cpp") continue;
    for (const auto& need : outside_needs()) {
      if (need.kind == "program" && text.find("\"" + need.name + "\"") != std::string::npos) {
        EXPECT_NE(text.find("DLS_REQUIRE_OUTSIDE("), std::string::npos)
            << file << " runs " << need.name << " but declares nothing with DLS_REQUIRE_OUTSIDE";
      }
    }
  }
  for (const auto& file : test_files({".sh"})) {
    if (file.parent_path() == "tests/support") continue;  // run by C++ tests, checked at launch
    std::string code;                                     // the script without its comments
    std::istringstream in(text_of(file));
    for (std::string line; std::getline(in, line);) code += line.substr(0, line.find('#')) + "\n";
    for (const auto& name : listed_program_names()) {
      if (!std::regex_search(code, std::regex("(^|[\\s/\"'(])" + name + "([\\s\"')]|$)"))) continue;
      EXPECT_TRUE(std::regex_search(code, std::regex("require_outside[^\\n]*/usr/bin/" + name + "\\b")))
          << file << " runs " << name << " without `require_outside /usr/bin/" << name << "`";
    }
  }
}

TEST(OutsideNeeds, PythonImportsAreItsTopLevelModules) {
  EXPECT_EQ(python_imports("import os\nimport torch.distributed as dist\nfrom nltk.translate import bleu_score\n"
                           "from . import sibling\nimport a, b.c as d  # import e\n    import f\n"),
            (std::vector<std::string>{"os", "torch", "nltk", "a", "b", "f"}));
  EXPECT_EQ(python_imports("import sys, nltk; sys.exit(0)"), (std::vector<std::string>{"sys", "nltk"}));
}

// The defect the list was made for: a test checked for /usr/bin/python3 only and ran
// tests/support/dist_rank.py, which imports torch; on a machine without python3-torch it
// failed instead of skipping. The launch check fails such a test on every machine.
TEST(OutsideNeeds, LaunchCheckCatchesAnUndeclaredModule) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/python3");
  const std::string script = testing::source_dir() + "/tests/support/dist_rank.py";
  EXPECT_NONFATAL_FAILURE(check_launch({"/usr/bin/python3", script}),
                          "imports torch, which the test did not declare: DLS_REQUIRE_OUTSIDE(\"torch\")");
  (void)require_outside({"torch"});
  check_launch({"/usr/bin/python3", script});  // declared: no failure
}

TEST(OutsideNeeds, LaunchCheckFollowsTorchrunIntoTheProjectsScripts) {
  forget_declared_outside_needs();
  (void)require_outside({"/usr/bin/torchrun"});
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    check_launch({"/usr/bin/torchrun", "--nproc_per_node", "2", "--no_python",
                  testing::source_dir() + "/tests/support/dist_rank_mixed.sh", "worker", "30"});
    check_launch({"/usr/bin/zip", "-r", "x.zip", "."});
  }
  std::string messages;
  for (int i = 0; i < failures.size(); ++i) messages += failures.GetTestPartResult(i).message() + std::string("\n");
  EXPECT_NE(messages.find("dist_rank_mixed.sh runs /usr/bin/python3, which the test did not declare"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("runs /usr/bin/zip, which tests/outside_needs.tsv does not list"), std::string::npos)
      << messages;
}

}  // namespace
}  // namespace dls::test
