#include "support/outside_needs.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "dls/util/file_io.h"
#include "support/test_paths.h"

namespace dls::test {
namespace {

namespace fs = std::filesystem;

const char* const kPython = "/usr/bin/python3";
const char* const kListFile = "tests/outside_needs.tsv";

std::vector<std::string>& declared() {
  static std::vector<std::string> names;
  return names;
}

bool is_declared(const std::string& name) {
  return std::find(declared().begin(), declared().end(), name) != declared().end();
}

bool present(const OutsideNeed& need) {
  static std::map<std::string, bool> known;
  const auto it = known.find(need.name);
  if (it != known.end()) return it->second;
  bool here = false;
  if (need.kind == "program") {
    here = ::access(need.name.c_str(), X_OK) == 0;
  } else if (need.kind == "file") {
    here = ::access(need.name.c_str(), R_OK) == 0;
  } else {
    here = ::access(kPython, X_OK) == 0 &&
           std::system((std::string(kPython) + " -c 'import " + need.name + "' >/dev/null 2>&1").c_str()) == 0;
  }
  return known[need.name] = here;
}

std::string missing_line(const OutsideNeed& need) {
  return (need.kind == "python-module" ? "Python module " + need.name : need.name) +
         " is not installed (Debian package " + need.package + ", which `make test` installs): skipped";
}

// The standard library's top-level modules, from /usr/bin/python3 itself.
const std::set<std::string>& standard_modules() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    if (::access(kPython, X_OK) != 0) return out;
    const std::string command =
        std::string(kPython) + " -c 'import sys; print(\"\\n\".join(sorted(sys.stdlib_module_names)))' 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return out;
    std::string line;
    for (int c; (c = std::fgetc(pipe)) != EOF;) {
      if (c != '\n') {
        line += static_cast<char>(c);
      } else if (!line.empty()) {
        out.insert(line);
        line.clear();
      }
    }
    ::pclose(pipe);
    return out;
  }();
  return names;
}

bool is_project_path(const std::string& path) {
  const auto under = [&](const std::string& dir) { return path.rfind(dir + "/", 0) == 0; };
  return under(testing::source_dir()) || under(testing::binary_dir());
}

// A module of the project's own Python sources (beside the script, or the oracles of
// tests/python, which the fixtures' scripts and the benchmark put on their path).
bool project_module(const std::string& module, const fs::path& script_dir) {
  for (const auto& dir : {script_dir, fs::path(testing::source_dir()) / "tests" / "python"}) {
    if (fs::exists(dir / (module + ".py")) || fs::exists(dir / module / "__init__.py")) return true;
  }
  return false;
}

// Fails the test unless `name` is listed as `kind` and the test declared it. `doing` is e.g.
// "the test runs" or "the script x.sh imports".
void expect_declared(const std::string& name, const std::string& kind, const std::string& doing) {
  const auto* need = find_outside_need(name);
  if (need == nullptr || need->kind != kind) {
    ADD_FAILURE() << doing << " " << name << ", which " << kListFile << " does not list";
  } else if (!is_declared(name)) {
    ADD_FAILURE() << doing << " " << name << ", which the test did not declare: DLS_REQUIRE_OUTSIDE(\"" << name
                  << "\")";
  }
}

void check_python_source(const std::string& source, const fs::path& script_dir, const std::string& what) {
  for (const auto& module : python_imports(source)) {
    if (standard_modules().count(module) != 0 || project_module(module, script_dir)) continue;
    expect_declared(module, "python-module", what + " imports");
  }
}

void check_outside_program(const std::string& program, const std::string& what) {
  if (!is_base_program(program)) expect_declared(program, "program", what + " runs");
}

void check_python_file(const fs::path& script, const std::string& what) {
  if (!fs::exists(script)) {
    ADD_FAILURE() << what << " runs the Python script " << script << ", which does not exist";
    return;
  }
  check_python_source(util::read_file(script.string()), script.parent_path(),
                      what + " (" + script.filename().string() + ")");
}

// The project's shell scripts: the /usr/bin programs they name and the Python scripts beside
// them that they run.
void check_shell_script(const fs::path& script) {
  const std::string text = util::read_file(script.string());
  const std::string what = "the script " + script.filename().string();
  // A path that starts the word: not $prefix/bin/x.
  static const std::regex program(R"((^|[^A-Za-z0-9_$}./-])((/usr)?/bin/[A-Za-z0-9_.+-]+))");
  for (std::sregex_iterator it(text.begin(), text.end(), program), end; it != end; ++it) {
    check_outside_program(it->str(2), what);
  }
  static const std::regex python_script(R"(([A-Za-z0-9_]+\.py)\b)");
  for (std::sregex_iterator it(text.begin(), text.end(), python_script), end; it != end; ++it) {
    check_python_file(script.parent_path() / it->str(1), what);
  }
}

void check_program(const std::vector<std::string>& argv, std::size_t at) {
  const std::string& program = argv[at];
  if (is_project_path(program)) {
    if (program.size() > 3 && program.compare(program.size() - 3, 3, ".sh") == 0) check_shell_script(program);
    if (program.size() > 3 && program.compare(program.size() - 3, 3, ".py") == 0) check_python_file(program, "a test");
    return;
  }
  check_outside_program(program, "the test");
  const auto name = fs::path(program).filename().string();
  if (name.rfind("python3", 0) == 0) {
    for (std::size_t i = at + 1; i < argv.size(); ++i) {
      if (argv[i] == "-c" && i + 1 < argv.size()) {
        check_python_source(argv[i + 1], testing::source_dir(), "the test's python3 -c");
        return;
      }
      if (argv[i] == "-m" && i + 1 < argv.size()) {
        check_python_source("import " + argv[i + 1], testing::source_dir(), "the test's python3 -m");
        return;
      }
      if (argv[i].size() > 3 && argv[i].compare(argv[i].size() - 3, 3, ".py") == 0) {
        check_python_file(argv[i], "the test");
        return;
      }
    }
  } else if (name == "torchrun") {
    // The program it launches: the first argument that is one of the project's files.
    for (std::size_t i = at + 1; i < argv.size(); ++i) {
      if (is_project_path(argv[i]) && fs::is_regular_file(argv[i])) {
        check_program(argv, i);
        return;
      }
    }
  }
}

}  // namespace

const std::vector<OutsideNeed>& outside_needs() {
  static const std::vector<OutsideNeed> needs = [] {
    std::vector<OutsideNeed> out;
    std::istringstream in(util::read_file(testing::source_dir() + "/" + kListFile));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> fields;
      std::istringstream columns(line);
      for (std::string field; std::getline(columns, field, '\t');) fields.push_back(field);
      if (fields.size() != 4 || (fields[1] != "program" && fields[1] != "file" && fields[1] != "python-module")) {
        ADD_FAILURE() << kListFile << ": not 'name<TAB>program|file|python-module<TAB>package<TAB>why': " << line;
        continue;
      }
      out.push_back({fields[0], fields[1], fields[2], fields[3]});
    }
    return out;
  }();
  return needs;
}

bool is_base_program(const std::string& path) {
  static const std::set<std::string> base = {"/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/env"};
  return base.count(path) != 0;
}

const OutsideNeed* find_outside_need(const std::string& name) {
  for (const auto& need : outside_needs()) {
    if (need.name == name) return &need;
  }
  return nullptr;
}

std::string require_outside(std::initializer_list<std::string> names) {
  std::string first_missing;
  for (const auto& name : names) {
    const auto* need = find_outside_need(name);
    if (need == nullptr) {
      ADD_FAILURE() << name << " is not in " << kListFile << ": list it (with its Debian package) first";
      if (first_missing.empty()) first_missing = name + " is not listed";
      continue;
    }
    if (!is_declared(name)) declared().push_back(name);
    if (first_missing.empty() && !present(*need)) first_missing = missing_line(*need);
  }
  return first_missing;
}

const std::vector<std::string>& declared_outside_needs() { return declared(); }
void forget_declared_outside_needs() { declared().clear(); }

void check_launch(const std::vector<std::string>& argv) {
  if (!argv.empty()) check_program(argv, 0);
}

std::string outside_command(const std::vector<std::string>& argv) {
  check_launch(argv);
  std::string command;
  for (const auto& arg : argv) {
    std::string quoted = "'";
    for (const char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    command += (command.empty() ? "" : " ") + quoted + "'";
  }
  return command;
}

std::vector<std::string> python_imports(const std::string& source) {
  std::vector<std::string> modules;
  const auto add = [&](std::string name) {
    name = name.substr(0, name.find('.'));
    if (!name.empty() && std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
  };
  std::string statements = source;
  std::replace(statements.begin(), statements.end(), ';', '\n');
  std::istringstream in(statements);
  static const std::regex import_line(R"(^\s*import\s+(.+)$)"), from_line(R"(^\s*from\s+([A-Za-z_][\w.]*)\s+import\b)");
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::smatch match;
    if (std::regex_search(line, match, from_line)) {
      add(match[1]);
    } else if (std::regex_search(line, match, import_line)) {
      std::istringstream names(match[1].str());
      for (std::string part; std::getline(names, part, ',');) {
        std::istringstream words(part);
        std::string first;
        words >> first;
        add(first);
      }
    }
  }
  return modules;
}

}  // namespace dls::test
