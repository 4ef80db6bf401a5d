#include "dls/checkpoint/checkpoint_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

TEST(CheckpointFiles, MissingOrEmptyDirectoriesAreErrors) {
  const auto dir = test::fresh_temp_dir("run_directory_empty");
  EXPECT_THROW(find_checkpoints((dir / "absent").string()), std::runtime_error);
  try {
    find_checkpoints(dir.string());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint files"), std::string::npos);
  }
}

}  // namespace
}  // namespace dls::checkpoint
