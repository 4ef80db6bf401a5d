#include "dls/checkpoint/run_lineage.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"
#include "dls/util/resolved_path.h"
#include "dls/util/toml_subset.h"

namespace dls::checkpoint {

namespace {

namespace fs = std::filesystem;

// A checkpoint's origin: its run directory, or the file itself when it stands alone (its
// folder is the user's, shared with unrelated files).
std::string origin_of(const std::string& checkpoint_or_run) {
  std::error_code error;
  const bool file = fs::is_regular_file(checkpoint_or_run, error);
  return util::resolved_path(file && !report_file_prefix(checkpoint_or_run).empty() ? checkpoint_or_run
                                                                                    : run_dir_of(checkpoint_or_run));
}

// What run directory `origin`'s --init-from read, from its config.toml; "" when none is
// recorded (trained from scratch, a file standing alone, a config.toml that does not read).
std::string init_from_of(const std::string& origin) {
  const auto config = fs::path(origin) / "config.toml";
  std::error_code error;
  if (!fs::is_regular_file(config, error)) return "";
  try {
    for (const auto& item : util::parse_toml_subset(util::read_file(config.string()), config.string())) {
      if (item.name == "init-from" && !item.is_array && item.values.size() == 1) return item.values[0];
    }
  } catch (const std::exception&) {
    // An unreadable recipe records no origin: the lineage ends here.
  }
  return "";
}

}  // namespace

std::vector<std::string> run_lineage(const std::string& checkpoint_or_run) {
  std::vector<std::string> lineage;
  for (auto origin = origin_of(checkpoint_or_run);
       !origin.empty() && std::find(lineage.begin(), lineage.end(), origin) == lineage.end();) {
    lineage.push_back(origin);
    const auto parent = init_from_of(origin);
    origin = parent.empty() ? "" : origin_of(parent);
  }
  return lineage;
}

std::string shared_origin(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& origin : a) {
    if (std::find(b.begin(), b.end(), origin) != b.end()) return origin;
  }
  return "";
}

}  // namespace dls::checkpoint
