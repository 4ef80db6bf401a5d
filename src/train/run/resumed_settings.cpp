#include "dls/train/run/resumed_settings.h"

#include <filesystem>
#include <map>
#include <sstream>

#include "dls/util/file_io.h"
#include "dls/util/toml_subset.h"

namespace dls::train {

namespace {

// name -> its value as written ("a,b" for an array), in the text's order.
std::vector<std::pair<std::string, std::string>> values_of(const std::string& toml, const std::string& source) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& item : util::parse_toml_subset(toml, source)) {
    std::string value;
    for (const auto& each : item.values) value += (value.empty() ? "" : ",") + each;
    values.emplace_back(item.name, item.is_array ? "[" + value + "]" : value);
  }
  return values;
}

}  // namespace

std::vector<std::string> changed_settings(const std::string& before, const std::string& after) {
  std::map<std::string, std::string> was;
  for (auto& [name, value] : values_of(before, "the run's settings")) was[name] = value;
  std::vector<std::string> changes;
  for (const auto& [name, value] : values_of(after, "this resume's settings")) {
    const auto found = was.find(name);
    if (found != was.end() && found->second != value) changes.push_back(name + " " + found->second + " -> " + value);
  }
  return changes;
}

std::vector<std::string> record_resumed_settings(const std::string& run_dir, const std::string& config_toml,
                                                 const std::string& resumed_at) {
  namespace fs = std::filesystem;
  const auto resumed = fs::path(run_dir) / kResumedConfigFile;
  const auto started = fs::path(run_dir) / "config.toml";
  std::error_code error;
  const auto latest = fs::exists(resumed, error) ? resumed : started;
  if (config_toml.empty() || !fs::exists(latest, error)) return {};
  // A resume's settings name no run directory of their own (--resume gives it): this one.
  std::istringstream lines(config_toml);
  std::string text;
  for (std::string line; std::getline(lines, line);) {
    text +=
        (line.rfind("run-dir=", 0) == 0 ? "run-dir=" + util::toml_value(util::absolute_path(run_dir)) : line) + "\n";
  }
  std::vector<std::string> changes;
  try {
    changes = changed_settings(util::read_file(latest.string()), text);
  } catch (const std::exception&) {  // a damaged file is no reason to stop training; nothing to compare
    return {};
  }
  if (changes.empty()) return changes;
  std::string header = "# The run's settings since it was resumed " + resumed_at + "; it started with config.toml.\n";
  for (const auto& change : changes) header += "# changed: " + change + "\n";
  util::write_text_atomically(resumed.string(), header + text);
  return changes;
}

}  // namespace dls::train
