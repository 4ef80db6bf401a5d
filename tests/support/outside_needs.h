// What a test runs from outside this project (tests/outside_needs.tsv is the one list): the
// test declares it, skips with one line naming it when it is absent, and fails when it runs
// something undeclared (check_launch). The checks that the list and the tests agree are in
// tests/outside_needs_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace dls::test {

struct OutsideNeed {
  std::string name;     // a program's or a data file's absolute path, or a Python module's top-level name
  std::string kind;     // "program", "file" (data a package installs) or "python-module"
  std::string package;  // the Debian package that provides it
  std::string why;      // what needs it
};

// tests/outside_needs.tsv, parsed once.
const std::vector<OutsideNeed>& outside_needs();
// Programs of every Debian system (/bin/sh, /usr/bin/env, ...), which need no listing.
bool is_base_program(const std::string& path);
// The listed entry of that name; nullptr when the list does not name it.
const OutsideNeed* find_outside_need(const std::string& name);

// Declares that the running test uses `names` (each a listed name; an unlisted one fails the
// test). Returns "" when all are present, else one line naming the first that is missing
// and its Debian package. Python modules are probed with /usr/bin/python3 -c 'import m'.
std::string require_outside(std::initializer_list<std::string> names);
// What the running test has declared (cleared when a test starts).
const std::vector<std::string>& declared_outside_needs();
void forget_declared_outside_needs();

// Checks, before a test runs it, the command `argv`: a program of this project (below the
// source or build folder) or a declared outside program; for python3 the script's or -c
// code's imports (standard library, the project's own modules, declared modules); for the
// project's shell scripts the /usr/bin programs and Python scripts they run; for torchrun
// the program it launches. Adds a test failure naming what is undeclared or unlisted.
void check_launch(const std::vector<std::string>& argv);

// check_launch(argv), then argv as one shell command line (for std::system), each argument
// single-quoted.
std::string outside_command(const std::vector<std::string>& argv);

// The top-level modules a Python source imports ("import a.b, c" and "from d.e import f"
// give a, c, d; relative imports are left out).
std::vector<std::string> python_imports(const std::string& source);

}  // namespace dls::test

// In a test body: declares what it uses from outside and skips, with one line naming what
// is missing, when anything is absent. DLS_REQUIRE_OUTSIDE("/usr/bin/python3", "torch");
#define DLS_REQUIRE_OUTSIDE(...)                                                                           \
  if (const std::string dls_missing_ = ::dls::test::require_outside({__VA_ARGS__}); !dls_missing_.empty()) \
  GTEST_SKIP() << dls_missing_
