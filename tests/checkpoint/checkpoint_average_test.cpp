#include "dls/checkpoint/checkpoint_average.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_id.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

struct TinyImpl : torch::nn::Module {
  explicit TinyImpl(int width) {
    fc = register_module("fc", torch::nn::Linear(2, width));
    register_module("drop", torch::nn::Dropout(0.1));  // a module without tensors
    register_buffer("steps", torch::zeros({1}, torch::kInt64));
  }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Tiny);

// A checkpoint of `tiny` with model settings width=`width`; `ema`: also an "ema" section;
// `run_id`: the run that wrote it ("": none).
std::string save(const fs::path& path, Tiny& tiny, int width, Tiny* ema = nullptr, const std::string& vocab = "a\nb\n",
                 const std::string& run_id = "") {
  util::KeyValues settings;
  settings.set("model.width", width);
  settings.set("progress.epoch", 1);
  CheckpointWriter writer("toy");
  writer.add_settings(settings);
  writer.add_text("vocab", vocab);
  if (!run_id.empty()) writer.add_text(kRunIdText, run_id);
  writer.add_module("model", *tiny);
  if (ema != nullptr) writer.add_module("ema", **ema);
  writer.save(path.string());
  return path.string();
}

TEST(CheckpointAverage, TwoCheckpointsAverageToTheirMean) {
  const auto dir = test::fresh_temp_dir("checkpoint_average");
  torch::manual_seed(2);
  Tiny a(3), b(3);
  const auto first = save(dir / "a.pt", a, 3), second = save(dir / "b.pt", b, 3);
  const auto output = (dir / "avg.pt").string();
  average_checkpoints({first, second}, output);

  const CheckpointReader reader(output, "toy");
  EXPECT_EQ(reader.settings().get_int("model.width"), 3);
  EXPECT_EQ(reader.text("vocab"), "a\nb\n");
  EXPECT_EQ(reader.text("averaged_from"), "a.pt\nb.pt\n");
  EXPECT_FALSE(reader.has_module("ema"));
  Tiny averaged(3);
  reader.load_module("model", *averaged);  // a model of the same layout reads it
  EXPECT_TRUE(torch::allclose(averaged->fc->weight, (a->fc->weight + b->fc->weight) / 2, 0, 1e-7));
  EXPECT_TRUE(torch::allclose(averaged->fc->bias, (a->fc->bias + b->fc->bias) / 2, 0, 1e-7));
  EXPECT_FALSE(torch::allclose(averaged->fc->weight, b->fc->weight));
  EXPECT_EQ(averaged->named_buffers()["steps"].scalar_type(), torch::kInt64) << "dtypes kept";
  // Weights only: resuming from it is refused with the way to start from it.
  torch::optim::Adam adam(averaged->parameters());
  try {
    reader.load_optimizer("optimizer", adam);
    FAIL() << "an average resumed";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("an average of checkpoints has no optimizer state to resume; --init-from"),
              std::string::npos)
        << error.what();
  }
}

// A run's newest N are its own: a newer checkpoint another run wrote (copied in) is passed over
// and named; each file is read once (each was read to learn its run, then again to be averaged).
TEST(CheckpointAverage, TheNewestOfTheRunsOwnAreAveragedEachReadOnce) {
  const auto run = test::fresh_temp_dir("checkpoint_average_newest");
  fs::create_directories(run / "checkpoints");
  test::write_bytes(run / kRunIdFile, "aaaa\n");
  torch::manual_seed(3);
  Tiny first(3), second(3), third(3), copied(3);
  std::vector<std::string> own;
  for (auto* tiny : {&first, &second, &third}) {
    const auto path = run / "checkpoints" / checkpoint_file_name(static_cast<std::int64_t>(own.size()) + 1);
    own.push_back(save(path, *tiny, 3, nullptr, "a\nb\n", "aaaa"));
  }
  const auto foreign = save(run / "checkpoints" / checkpoint_file_name(9), copied, 3, nullptr, "a\nb\n", "bbbb");
  std::ostringstream messages;
  const auto output = average_output(run.string(), 2);
  EXPECT_EQ(output, (run / "average_last_2.pt").string());
  const auto opened_before = CheckpointReader::files_opened();
  const auto averaged = average_newest(run.string(), 2, output, messages);
  EXPECT_EQ(CheckpointReader::files_opened() - opened_before, 3u) << "the copy, then the run's newest two";
  EXPECT_EQ(averaged, (std::vector<std::string>{own[1], own[2]}));
  EXPECT_EQ(messages.str().rfind("skipped: " + foreign + ": a checkpoint of run bbbb", 0), 0u) << messages.str();
  const CheckpointReader reader(output, "toy");
  EXPECT_EQ(reader.text("averaged_from"), checkpoint_file_name(2) + "\n" + checkpoint_file_name(3) + "\n");
  EXPECT_EQ(reader.text(kRunIdText), "aaaa") << "the newest's texts";
  Tiny mean(3);
  reader.load_module("model", *mean);
  EXPECT_TRUE(torch::allclose(mean->fc->weight, (second->fc->weight + third->fc->weight) / 2, 0, 1e-7));
  // Fewer of its own than asked: refused, naming the run, nothing written.
  fs::remove(output);
  try {
    average_newest(run.string(), 4, output, messages);
    FAIL() << "averaged 4 of 3";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), run.string() + ": 3 checkpoints, --average 4 needs that many");
  }
  EXPECT_FALSE(fs::exists(output));
}

TEST(CheckpointAverage, AveragesTheMovingAverageWhereCheckpointsHoldOne) {
  const auto dir = test::fresh_temp_dir("checkpoint_average_ema");
  torch::manual_seed(4);
  Tiny a(2), a_ema(2), b(2), b_ema(2);
  const auto first = save(dir / "a.pt", a, 2, &a_ema), second = save(dir / "b.pt", b, 2, &b_ema);
  average_checkpoints({first, second}, (dir / "avg.pt").string());
  Tiny averaged(2);
  CheckpointReader(dir / "avg.pt").load_module("model", *averaged);
  EXPECT_TRUE(torch::allclose(averaged->fc->weight, (a_ema->fc->weight + b_ema->fc->weight) / 2, 0, 1e-7));
}

// checkpoint_eval RUN --average 2 --output RUN/checkpoints/<newest>.pt replaced the newest
// training checkpoint, and --resume failed after it: an average replaces only an average.
TEST(CheckpointAverage, NeverReplacesATrainingCheckpoint) {
  const auto dir = test::fresh_temp_dir("checkpoint_average_output");
  Tiny a(2), b(2);
  const auto first = save(dir / "a.pt", a, 2), second = save(dir / "b.pt", b, 2);
  const auto second_bytes = util::read_file(second);
  const auto refused = [&](const std::string& output) {
    try {
      average_checkpoints({first, second}, output);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(refused(second).rfind(second + ": exists and is not an earlier average", 0), 0u) << refused(second);
  EXPECT_EQ(util::read_file(second), second_bytes);
  fs::create_directories(dir / "checkpoints");
  const auto among = (dir / "checkpoints" / "avg.pt").string();
  EXPECT_EQ(refused(among).rfind(among + ": an average goes beside a run's checkpoints/", 0), 0u) << refused(among);
  EXPECT_FALSE(fs::exists(among));
  // An earlier average is replaced: the command can be run again.
  const auto output = (dir / "avg.pt").string();
  average_checkpoints({first, second}, output);
  average_checkpoints({first, second}, output);
  EXPECT_TRUE(CheckpointReader(output).has_text("averaged_from"));
}

TEST(CheckpointAverage, RefusesCheckpointsOfAnotherModelNamingTheFile) {
  const auto dir = test::fresh_temp_dir("checkpoint_average_mismatch");
  Tiny narrow(2), wide(3);
  const auto narrow_path = save(dir / "narrow.pt", narrow, 2), wide_path = save(dir / "wide.pt", wide, 3);
  try {
    average_checkpoints({narrow_path, wide_path}, (dir / "avg.pt").string());
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(narrow_path + ": model settings differ", 0), 0u) << error.what();
  }
  // The same settings but another layout of weights.
  const auto lying = save(dir / "lying.pt", narrow, 3);
  try {
    average_checkpoints({lying, wide_path}, (dir / "avg.pt").string());
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(lying + ": weights do not match", 0), 0u) << error.what();
  }
  // One shape, other words: row i of one is not row i of the other.
  const auto other_words = save(dir / "other_words.pt", narrow, 2, nullptr, "a\nc\n");
  try {
    average_checkpoints({other_words, narrow_path}, (dir / "avg.pt").string());
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(other_words + ": its vocab differs from " + narrow_path, 0), 0u)
        << error.what();
  }
  EXPECT_FALSE(fs::exists(dir / "avg.pt"));
}

}  // namespace
}  // namespace dls::checkpoint
