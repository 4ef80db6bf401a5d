// Agreement of dls::eval BLEU with NLTK 3.8 on random cases: a committed table written by
// tests/fixtures/bleu/make_bleu_cases.py, and the same script run live with a fresh seed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/eval/bleu.h"
#include "dls/util/file_io.h"
#include "support/outside_needs.h"
#include "support/test_paths.h"

namespace dls::eval {
namespace {

namespace fs = std::filesystem;

const std::string kScript = dls::testing::fixtures_dir() + "/bleu/make_bleu_cases.py";
const char* const kPython = "/usr/bin/python3";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// std::stod would throw on subnormal values (NLTK's method0 gives some); strtod does not.
double parse_double(const std::string& field) {
  char* end = nullptr;
  const double value = std::strtod(field.c_str(), &end);
  if (end == field.c_str() || *end != '\0') throw std::invalid_argument("not a number: " + field);
  return value;
}

std::vector<std::size_t> parse_counts(const std::string& field) {
  std::vector<std::size_t> counts;
  for (const auto& part : split(field, ',')) counts.push_back(std::stoul(part));
  return counts;
}

struct Agreement {
  std::size_t cases = 0;
  std::size_t errors = 0;               // cases where NLTK raises (and we must throw)
  std::map<std::string, double> worst;  // smoothing -> largest relative difference
};

// Scores every case of a table written by make_bleu_cases.py and compares with NLTK:
// BLEU to 1e-9 relative (exactly 0 where NLTK gives 0), counts and lengths exactly.
Agreement check_table(const std::string& path) {
  std::istringstream lines(util::read_file(path));
  std::string line;
  Agreement agreement;
  std::size_t line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#' || line.rfind("id\t", 0) == 0) continue;
    const auto f = split(line, '\t');
    if (f.size() != 15) {
      ADD_FAILURE() << path << ":" << line_number << ": " << f.size() << " columns, expected 15";
      continue;
    }
    SCOPED_TRACE(path + ":" + std::to_string(line_number) + " (case " + f[0] + ", " + f[1] + ", " + f[2] +
                 ", weights " + f[7] + ")");
    BleuOptions options;
    options.smoothing = parse_smoothing(f[2]);
    options.auto_reweigh = f[3] == "1";
    options.epsilon = parse_double(f[4]);
    options.alpha = parse_double(f[5]);
    options.k = parse_double(f[6]);
    options.weights.clear();
    for (const auto& w : split(f[7], ',')) options.weights.push_back(parse_double(w));
    std::vector<Tokens> hypotheses;
    std::vector<std::vector<Tokens>> references;
    for (const auto& sentence : split(f[14], ';')) {
      const auto parts = split(sentence, '|');
      hypotheses.push_back(split_whitespace(parts[0]));
      references.emplace_back();
      for (std::size_t r = 1; r < parts.size(); ++r) references.back().push_back(split_whitespace(parts[r]));
    }
    const bool sentence_level = f[1] == "sentence";
    auto run = [&] {
      return sentence_level ? sentence_bleu(references[0], hypotheses[0], options)
                            : corpus_bleu(references, hypotheses, options);
    };
    ++agreement.cases;
    if (f[8].rfind("error:", 0) == 0) {
      ++agreement.errors;
      EXPECT_THROW(run(), std::invalid_argument) << "NLTK raises " << f[8];
      continue;
    }
    const BleuScore score = run();
    const double expected = parse_double(f[8]);
    if (expected == 0) {
      EXPECT_EQ(score.bleu, 0.0);
    } else {
      const double relative = std::fabs(score.bleu - expected) / std::fabs(expected);
      EXPECT_LE(relative, 1e-9) << "bleu " << score.bleu << " vs NLTK " << expected;
      double& worst = agreement.worst[f[2]];
      worst = std::max(worst, relative);
    }
    EXPECT_NEAR(score.bp, parse_double(f[9]), 1e-15);
    EXPECT_EQ(score.hyp_len, std::stoul(f[10]));
    EXPECT_EQ(score.ref_len, std::stoul(f[11]));
    EXPECT_EQ(score.matches, parse_counts(f[12]));
    EXPECT_EQ(score.totals, parse_counts(f[13]));
  }
  return agreement;
}

void print_agreement(const Agreement& agreement) {
  std::printf("%zu cases (%zu where NLTK raises); largest relative difference:", agreement.cases, agreement.errors);
  for (const auto& [method, worst] : agreement.worst) std::printf(" %s %.1e", method.c_str(), worst);
  std::printf("\n");
}

TEST(BleuNltk, CommittedTableAgrees) {
  const Agreement agreement = check_table(dls::testing::fixtures_dir() + "/bleu/nltk_cases.tsv");
  EXPECT_GE(agreement.cases, 1000u);
  EXPECT_GT(agreement.errors, 0u);  // the table covers NLTK's method6 failures
  EXPECT_EQ(agreement.worst.size(), 8u) << "every smoothing method has non-zero cases";
  print_agreement(agreement);
}

TEST(BleuNltk, LiveNltkAgreesOnFreshCases) {
  DLS_REQUIRE_OUTSIDE(kPython, "nltk");
  const std::string probe = test::outside_command(
      {kPython, "-c", "import sys, nltk; sys.exit(0 if nltk.__version__.startswith('3.8') else 3)"});
  if (std::system((probe + " >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << "NLTK is not version 3.8 (the committed table's): live NLTK comparison skipped";
  }
  const unsigned seed = std::random_device{}() % 1000000000u + 2;  // the table used seed 1
  const fs::path table = fs::temp_directory_path() / ("dls_bleu_nltk_" + std::to_string(::getpid()) + ".tsv");
  const std::string command = test::outside_command(
      {kPython, kScript, "--seed", std::to_string(seed), "--count", "1000", "--out", table.string()});
  SCOPED_TRACE("seed " + std::to_string(seed) + ": " + command);
  ASSERT_EQ(std::system(command.c_str()), 0);
  const Agreement agreement = check_table(table.string());
  fs::remove(table);
  EXPECT_EQ(agreement.cases, 1000u);
  std::printf("seed %u: ", seed);
  print_agreement(agreement);
}

}  // namespace
}  // namespace dls::eval
