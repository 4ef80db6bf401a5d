// checkpoint/opened_checkpoint.h: the checkpoint a program opened for its settings is the one
// the trainer takes, not read again (a file damaged after it was opened still serves); another
// name opens its own file; nothing is kept once taken; the kind is checked on the way.
#include "dls/checkpoint/opened_checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/key_values.h"
#include "support/error_of.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

// A checkpoint of kind "toy" whose settings say `mark`, at `path`.
void write_toy(const fs::path& path, int mark) {
  util::KeyValues settings;
  settings.set("mark", mark);
  CheckpointWriter writer("toy");
  writer.add_settings(settings);
  writer.add_tensor("weights", torch::arange(1000, torch::kFloat));
  fs::create_directories(path.parent_path());
  writer.save(path.string());
}

int mark_of(const CheckpointReader& reader) { return static_cast<int>(reader.settings().get_int("mark")); }

TEST(OpenedCheckpoint, TheFileOpenedIsTakenNotReadAgain) {
  const auto dir = test::fresh_temp_dir("opened_checkpoint_taken");
  const auto file = dir / "toy.pt";
  write_toy(file, 1);
  OpenedCheckpoint opened(OpenedCheckpoint::Pick::kLatest);
  EXPECT_EQ(mark_of(opened.open(file.string(), "toy")), 1);
  test::damage_in_place(file);  // read again, it would be refused
  const auto taken = opened.take(file.string(), "toy");
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(mark_of(*taken), 1);
  EXPECT_TRUE(torch::equal(taken->tensor("weights"), torch::arange(1000, torch::kFloat)));
  // Taken once: a second take opens the file now, and finds it damaged.
  const auto error = test::error_of([&] { opened.take(file.string(), "toy"); });
  EXPECT_NE(error.find("corrupt checkpoint"), std::string::npos) << error;
}

TEST(OpenedCheckpoint, AnotherNameOpensItsOwnFile) {
  const auto dir = test::fresh_temp_dir("opened_checkpoint_other");
  write_toy(dir / "a.pt", 1);
  write_toy(dir / "b.pt", 2);
  OpenedCheckpoint opened(OpenedCheckpoint::Pick::kLatest);
  opened.open((dir / "a.pt").string(), "toy");
  EXPECT_EQ(mark_of(*opened.take((dir / "b.pt").string(), "toy")), 2);
  // What was kept for a.pt went with that take.
  test::damage_in_place(dir / "a.pt");
  EXPECT_NE(test::error_of([&] { opened.take((dir / "a.pt").string(), "toy"); }).find("corrupt"), std::string::npos);
}

TEST(OpenedCheckpoint, TheKindIsCheckedWhenTaken) {
  const auto dir = test::fresh_temp_dir("opened_checkpoint_kind");
  write_toy(dir / "toy.pt", 1);
  OpenedCheckpoint opened(OpenedCheckpoint::Pick::kRunNewest);
  opened.open((dir / "toy.pt").string(), "");  // --init-from opens any kind; the trainer refuses
  const auto error = test::error_of([&] { opened.take((dir / "toy.pt").string(), "vit"); });
  EXPECT_EQ(error, (dir / "toy.pt").string() + ": a toy checkpoint, expected a vit one");
}

// A run directory opens its newest checkpoint, by either rule.
TEST(OpenedCheckpoint, ARunOpensItsNewestCheckpoint) {
  const auto run = test::fresh_temp_dir("opened_checkpoint_run");
  write_toy(run / "checkpoints" / checkpoint_file_name(1), 1);
  write_toy(run / "checkpoints" / checkpoint_file_name(2), 2);
  for (const auto pick : {OpenedCheckpoint::Pick::kLatest, OpenedCheckpoint::Pick::kRunNewest}) {
    OpenedCheckpoint opened(pick);
    EXPECT_EQ(mark_of(opened.open(run.string(), "toy")), 2);
    EXPECT_EQ(mark_of(*opened.take(run.string(), "toy")), 2);
    EXPECT_EQ(mark_of(*opened.take(run.string(), "toy")), 2) << "opened again";
  }
}

}  // namespace
}  // namespace dls::checkpoint
