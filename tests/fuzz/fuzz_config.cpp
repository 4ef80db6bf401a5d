// `--config FILE` on any text: CLI11's TOML reader with options declared as the programs
// declare theirs (apps/cli_overrides.h's setting() and in_range(), CLI::IsMember, flags,
// config extras refused, options kept out of config files). Whatever the file holds, the
// outcome is a parsed set of options or one CLI11 error, never a crash; an accepted number
// must lie in its range.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <sstream>
#include <string>

#include "apps/cli_overrides.h"
#include "apps/config_file.h"
#include "fuzz_input.h"

namespace {

struct Settings {
  std::int64_t batch_size = 64;
  std::uint64_t seed = 0;
  double lr = 1e-4, dropout = 0.1;
  std::string schedule = "constant", optimizer = "adam", data;
  bool length_buckets = false;
};

// As the programs wrap dls::apps::setting for their settings type.
template <typename T>
CLI::Option* setting(CLI::App& app, dls::apps::Overrides<Settings>& overrides, const std::string& name,
                     std::function<void(Settings&, const T&)> apply) {
  return dls::apps::setting<T, Settings>(app, overrides, name, "", std::move(apply));
}

void check(bool holds) {
  if (!holds) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using dls::apps::in_range;
  CLI::App app{"fuzz"};
  dls::apps::Overrides<Settings> overrides;
  std::string preset = "cpu", run_dir;
  bool overwrite = false;
  int threads = 0;
  app.add_option("--data", run_dir, "a path");
  app.add_option("--preset", preset, "a preset")->check(CLI::IsMember({"dlstudio", "cpu"}));
  app.add_option("--threads", threads, "threads")->check(in_range(0, 1024));
  auto* overwrite_flag = app.add_flag("--overwrite", overwrite, "not in config files");
  setting<std::int64_t>(app, overrides, "--batch-size", [](auto& s, auto v) {
    s.batch_size = v;
  })->check(in_range(1, 1000000));
  setting<std::uint64_t>(app, overrides, "--seed", [](auto& s, auto v) {
    s.seed = v;
  })->check(in_range(0, 18446744073709551615.0));
  setting<double>(app, overrides, "--lr", [](auto& s, auto v) { s.lr = v; })->check(in_range(1e-12, 100));
  setting<double>(app, overrides, "--dropout", [](auto& s, auto v) { s.dropout = v; })->check(in_range(0, 0.99));
  setting<std::string>(app, overrides, "--schedule", [](auto& s, auto v) {
    s.schedule = v;
  })->check(CLI::IsMember({"constant", "cosine"}));
  setting<std::string>(app, overrides, "--optimizer", [](auto& s, auto v) {
    s.optimizer = v;
  })->check(dls::apps::optimizers());
  setting<bool>(app, overrides, "--length-buckets", [](auto& s, auto v) { s.length_buckets = v; });
  dls::apps::add_config_option(app);
  dls::apps::not_in_config({overwrite_flag});

  std::istringstream file(dls::fuzz::as_string(data, size));
  try {
    app.parse_from_stream(file);
  } catch (const CLI::Error&) {
    return 0;  // refused with CLI11's message, as the programs report it
  }
  Settings settings;
  for (const auto& apply : overrides) apply(settings);
  check(settings.batch_size >= 1 && settings.batch_size <= 1000000);
  check(std::isfinite(settings.lr) && settings.lr >= 1e-12 && settings.lr <= 100);
  check(std::isfinite(settings.dropout) && settings.dropout >= 0 && settings.dropout <= 0.99);
  check(threads >= 0 && threads <= 1024);
  check(preset == "dlstudio" || preset == "cpu");
  check(!overwrite);  // kept out of config files
  (void)dls::apps::resolved_config(app, "fuzz");
  return 0;
}
