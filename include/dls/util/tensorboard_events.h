// TensorBoard's event files, scalars only: what torch.utils.tensorboard's add_scalar writes,
// so that `tensorboard --logdir RUN/tensorboard` shows a run's curves. A file is a sequence
// of TFRecords (length, masked CRC-32C of the length, an `Event` protocol buffer, masked
// CRC-32C of it); the first event names the format ("brain.Event:2"), each later one holds
// one scalar (Summary.Value{tag, simple_value}) at a step and a wall time (Unix seconds).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dls::util {

struct ScalarEvent {
  std::string tag;  // "train/loss": TensorBoard groups the charts by the part before '/'
  std::int64_t step = 0;
  double wall_time = 0;  // Unix seconds
  float value = 0;
};

// CRC-32C (Castagnoli), the checksum of TFRecords, continuing `crc` (0 to start).
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

// The bytes of one event file: the file-version event at `wall_time`, then `scalars`.
std::string event_file_bytes(double wall_time, const std::vector<ScalarEvent>& scalars);
// The records of `scalars`, to append to an event file.
std::string scalar_records(const std::vector<ScalarEvent>& scalars);

// Appends records to an event file, flushed after each call, so that a live TensorBoard
// (and a crash) sees every scalar written so far.
class EventFileAppender {
 public:
  // `path` must exist (event_file_bytes written first). Throws std::runtime_error naming it.
  explicit EventFileAppender(std::string path);
  ~EventFileAppender();
  EventFileAppender(const EventFileAppender&) = delete;
  EventFileAppender& operator=(const EventFileAppender&) = delete;

  // Throws std::runtime_error naming the file when the write fails.
  void append(const std::vector<ScalarEvent>& scalars);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

// Every scalar of an event file, in order (other events skipped). Throws std::runtime_error
// "<path>: record N: <what>" for a checksum that does not match, a record cut off, or a
// malformed event.
std::vector<ScalarEvent> read_scalar_events(const std::string& path);

}  // namespace dls::util
