#include "dls/util/tensorboard_events.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

TEST(TensorBoardEvents, Crc32cHasTheCastagnoliCheckValue) {
  const std::string text = "123456789";
  EXPECT_EQ(crc32c(text.data(), text.size()), 0xE3069283u);                    // the polynomial's published check value
  EXPECT_EQ(crc32c(text.data() + 4, 5, crc32c(text.data(), 4)), 0xE3069283u);  // continued
}

TEST(TensorBoardEvents, ScalarsReadBackAsWrittenAndAppended) {
  const auto dir = test::fresh_temp_dir("tensorboard_events");
  const auto path = (dir / "events.out.tfevents.test").string();
  const std::vector<ScalarEvent> first{{"train/loss", 10, 1.7e9 + 0.25, 2.5f}, {"train/lr", 10, 1.7e9 + 0.25, 1e-3f}};
  write_text_atomically(path, event_file_bytes(1.7e9, first));
  {
    EventFileAppender appender(path);
    appender.append({{"epoch/val_loss", 123456789012LL, 1.7e9 + 9, -0.5f}});
  }
  const auto read = read_scalar_events(path);
  ASSERT_EQ(read.size(), 3u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(read[i].tag, first[i].tag);
    EXPECT_EQ(read[i].step, first[i].step);
    EXPECT_EQ(read[i].wall_time, first[i].wall_time);
    EXPECT_EQ(read[i].value, first[i].value);
  }
  EXPECT_EQ(read[2].tag, "epoch/val_loss");
  EXPECT_EQ(read[2].step, 123456789012LL);
  EXPECT_EQ(read[2].value, -0.5f);
}

TEST(TensorBoardEvents, AFlippedByteOrACutFileIsNamedByItsRecord) {
  const auto dir = test::fresh_temp_dir("tensorboard_events_bad");
  const auto bytes = event_file_bytes(1.7e9, {{"train/loss", 1, 1.7e9, 2.0f}, {"train/loss", 2, 1.7e9, 1.5f}});
  const auto path = (dir / "events.out.tfevents.bad").string();
  const auto expect_error = [&](const std::string& content, const std::string& what) {
    test::write_bytes(path, content);
    try {
      read_scalar_events(path);
      ADD_FAILURE() << "no error for " << what;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  auto flipped = bytes;
  flipped[bytes.size() - 6] ^= 0x01;  // inside the last event's float
  expect_error(flipped, "record 3: the event's checksum does not match");
  auto bad_length = bytes;
  bad_length[0] ^= 0x01;
  expect_error(bad_length, "record 1: the length's checksum does not match");
  expect_error(bytes.substr(0, bytes.size() - 2), "record 3: cut off");
}

}  // namespace
}  // namespace dls::util
