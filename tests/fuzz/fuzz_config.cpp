// `--config FILE` on any text: the programs' TOML reader (cli/config_toml.h) with options
// declared as the programs declare theirs (a settings struct's declare(), util/declared.h,
// made into flags by cli/declared_flags.h; plain options, config extras refused, options kept
// out of config files). Whatever
// the file holds, the outcome is a parsed set of options or one CLI11 error, never a crash;
// an accepted number must lie in its range; the settings written back as config.toml read
// back to the same settings.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <sstream>
#include <string>

#include "dls/cli/overrides.h"
#include "dls/cli/config_file.h"
#include "dls/cli/declared_flags.h"
#include "fuzz_input.h"

namespace {

struct Settings {
  std::int64_t batch_size = 64;
  std::uint64_t seed = 0;
  double lr = 1e-4, dropout = 0.1;
  std::string schedule = "constant", optimizer = "adam", data;
  bool length_buckets = false;

  template <typename Fields>
  static void declare(Settings& s, Fields& f) {
    using dls::util::Setting;
    f(s.data, Setting("data", "--data", "a path"));
    f(s.batch_size, Setting("batch_size", "--batch-size", "").range(1, 1000000));
    f(s.seed, Setting("seed", "--seed", "").range(0, 18446744073709551615.0));
    f(s.lr, Setting("lr", "--lr", "").range(1e-12, 100));
    f(s.dropout, Setting("dropout", "--dropout", "").range(0, 0.99));
    f(s.schedule, Setting("schedule", "--schedule", "").one_of({"constant", "cosine"}));
    f(s.optimizer, Setting("optimizer", "--optimizer", "").one_of({"adam", "adamw"}));
    f(s.length_buckets, Setting("length_buckets", "--length-buckets", "").as_switch());
  }
};

void check(bool holds) {
  if (!holds) std::abort();
}

// The programs' options over `settings`, each flag recorded in `overrides`.
void declare_fuzz_options(CLI::App& app, dls::cli::Overrides<Settings>& overrides, std::string& preset, int& threads,
                          bool& overwrite) {
  using dls::cli::in_range;
  app.add_option("--preset", preset, "a preset")->check(CLI::IsMember({"dlstudio", "cpu"}));
  app.add_option("--threads", threads, "threads")->check(in_range(0, 1024));
  dls::cli::not_in_config({app.add_flag("--overwrite", overwrite, "not in config files")});
  dls::cli::add_declared_flags(app, overrides, "Options");
  dls::cli::add_config_option(app);
}

// The settings a config text gives; throws CLI::Error.
Settings read_fuzz_settings(const std::string& text, std::string* written) {
  CLI::App app{"fuzz"};
  dls::cli::Overrides<Settings> overrides;
  std::string preset = "cpu";
  bool overwrite = false;
  int threads = 0;
  declare_fuzz_options(app, overrides, preset, threads, overwrite);
  std::istringstream file(text);
  app.parse_from_stream(file);
  Settings settings;
  dls::cli::apply_overrides(overrides, settings);
  check(settings.batch_size >= 1 && settings.batch_size <= 1000000);
  check(std::isfinite(settings.lr) && settings.lr >= 1e-12 && settings.lr <= 100);
  check(std::isfinite(settings.dropout) && settings.dropout >= 0 && settings.dropout <= 0.99);
  check(threads >= 0 && threads <= 1024);
  check(preset == "dlstudio" || preset == "cpu");
  check(!overwrite);  // kept out of config files
  if (written != nullptr) *written = dls::cli::resolved_config(overrides, settings, "fuzz");
  return settings;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string written;
  Settings settings;
  try {
    settings = read_fuzz_settings(dls::fuzz::as_string(data, size), &written);
  } catch (const CLI::Error&) {
    return 0;  // refused with one message, as the programs report it
  }
  const Settings again = read_fuzz_settings(written, nullptr);  // what config.toml holds reads back
  check(again.data == settings.data && again.batch_size == settings.batch_size && again.seed == settings.seed &&
        again.lr == settings.lr && again.dropout == settings.dropout && again.schedule == settings.schedule &&
        again.optimizer == settings.optimizer && again.length_buckets == settings.length_buckets);
  return 0;
}
