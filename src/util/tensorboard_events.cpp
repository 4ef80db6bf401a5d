#include "dls/util/tensorboard_events.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "dls/util/file_io.h"

namespace dls::util {

namespace {

// The reflected Castagnoli polynomial 0x1EDC6F41.
const std::array<std::uint32_t, 256>& crc32c_table() {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// TFRecord's masking, so that a CRC of data holding CRCs stays strong.
std::uint32_t masked_crc(const std::string& bytes) {
  const std::uint32_t crc = crc32c(bytes.data(), bytes.size());
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

void put_little_endian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Protocol-buffer fields: key = field number << 3 | wire type (0 varint, 1 fixed64,
// 2 length-delimited, 5 fixed32).
void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

void put_double_field(std::string& out, int field, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | 1);
  put_little_endian(out, bits, 8);
}

void put_float_field(std::string& out, int field, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | 5);
  put_little_endian(out, bits, 4);
}

// tensorflow/core/util/event.proto: Event{double wall_time = 1; int64 step = 2;
// oneof {string file_version = 3; Summary summary = 5}}; summary.proto: Summary{repeated
// Value value = 1}, Value{string tag = 1; float simple_value = 2}.
std::string record_of(const std::string& event) {
  std::string length;
  put_little_endian(length, event.size(), 8);
  std::string out = length;
  put_little_endian(out, masked_crc(length), 4);
  out += event;
  put_little_endian(out, masked_crc(event), 4);
  return out;
}

std::string scalar_event(const ScalarEvent& scalar) {
  std::string value;
  put_bytes_field(value, 1, scalar.tag);
  put_float_field(value, 2, scalar.value);
  std::string summary;
  put_bytes_field(summary, 1, value);
  std::string event;
  put_double_field(event, 1, scalar.wall_time);
  put_varint(event, 2 << 3 | 0);
  put_varint(event, static_cast<std::uint64_t>(scalar.step));
  put_bytes_field(event, 5, summary);
  return event;
}

// A protocol buffer's fields read one at a time.
class FieldReader {
 public:
  explicit FieldReader(const std::string& bytes) : bytes_(bytes) {}
  bool done() const { return at_ >= bytes_.size(); }
  // The next field's number and wire type; its value is read by one of the calls below.
  void next(int* field, int* wire) {
    const auto key = varint();
    *field = static_cast<int>(key >> 3);
    *wire = static_cast<int>(key & 7);
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<std::uint8_t>(take(1)[0]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    throw std::runtime_error("a varint longer than 10 bytes");
  }
  std::uint64_t fixed(int bytes) {
    const char* p = take(static_cast<std::size_t>(bytes));
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p[i])) << (8 * i);
    return value;
  }
  std::string bytes() {
    const auto size = varint();
    if (size > bytes_.size() - at_) throw std::runtime_error("a field longer than its message");
    return std::string(take(static_cast<std::size_t>(size)), static_cast<std::size_t>(size));
  }
  void skip(int wire) {
    if (wire == 0)
      varint();
    else if (wire == 1)
      fixed(8);
    else if (wire == 2)
      bytes();
    else if (wire == 5)
      fixed(4);
    else
      throw std::runtime_error("wire type " + std::to_string(wire) + " (not in an event)");
  }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - at_) throw std::runtime_error("a message cut off");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

double as_double(std::uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float as_float(std::uint64_t bits) {
  const auto narrow = static_cast<std::uint32_t>(bits);
  float value;
  std::memcpy(&value, &narrow, sizeof value);
  return value;
}

// The scalars of one Event message (none for the file-version event).
void read_event(const std::string& event, std::vector<ScalarEvent>& out) {
  double wall_time = 0;
  std::int64_t step = 0;
  std::vector<std::string> summaries;
  FieldReader reader(event);
  while (!reader.done()) {
    int field, wire;
    reader.next(&field, &wire);
    if (field == 1 && wire == 1)
      wall_time = as_double(reader.fixed(8));
    else if (field == 2 && wire == 0)
      step = static_cast<std::int64_t>(reader.varint());
    else if (field == 5 && wire == 2)
      summaries.push_back(reader.bytes());
    else
      reader.skip(wire);
  }
  for (const auto& summary : summaries) {
    FieldReader values(summary);
    while (!values.done()) {
      int field, wire;
      values.next(&field, &wire);
      if (field != 1 || wire != 2) {
        values.skip(wire);
        continue;
      }
      const auto value = values.bytes();
      FieldReader parts(value);
      ScalarEvent scalar{"", step, wall_time, 0};
      bool simple = false;
      while (!parts.done()) {
        int part, part_wire;
        parts.next(&part, &part_wire);
        if (part == 1 && part_wire == 2)
          scalar.tag = parts.bytes();
        else if (part == 2 && part_wire == 5)
          scalar.value = as_float(parts.fixed(4)), simple = true;
        else
          parts.skip(part_wire);
      }
      if (simple) out.push_back(std::move(scalar));
    }
  }
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) {
  const auto& table = crc32c_table();
  const auto* p = static_cast<const std::uint8_t*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string scalar_records(const std::vector<ScalarEvent>& scalars) {
  std::string out;
  for (const auto& scalar : scalars) out += record_of(scalar_event(scalar));
  return out;
}

std::string event_file_bytes(double wall_time, const std::vector<ScalarEvent>& scalars) {
  std::string version;
  put_double_field(version, 1, wall_time);
  put_bytes_field(version, 3, "brain.Event:2");
  return record_of(version) + scalar_records(scalars);
}

EventFileAppender::EventFileAppender(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) throw std::runtime_error(path_ + ": cannot open for appending (" + std::strerror(errno) + ")");
}

EventFileAppender::~EventFileAppender() {
  if (file_ != nullptr) std::fclose(file_);
}

void EventFileAppender::append(const std::vector<ScalarEvent>& scalars) {
  const auto bytes = scalar_records(scalars);
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::fflush(file_) != 0) {
    throw std::runtime_error(path_ + ": cannot write (" + std::strerror(errno) + ")");
  }
}

std::vector<ScalarEvent> read_scalar_events(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<ScalarEvent> scalars;
  std::size_t at = 0;
  for (int record = 1; at < text.size(); ++record) {
    const auto fail = [&](const std::string& what) {
      return std::runtime_error(path + ": record " + std::to_string(record) + ": " + what);
    };
    if (text.size() - at < 12) throw fail("cut off in its header");
    const std::string length_bytes = text.substr(at, 8);
    FieldReader length_reader(length_bytes);
    const auto length = length_reader.fixed(8);
    if (FieldReader(text.substr(at + 8, 4)).fixed(4) != masked_crc(length_bytes)) {
      throw fail("the length's checksum does not match");
    }
    if (length > text.size() - at - 12 || text.size() - at - 12 - length < 4) throw fail("cut off");
    const std::string event = text.substr(at + 12, static_cast<std::size_t>(length));
    if (FieldReader(text.substr(at + 12 + length, 4)).fixed(4) != masked_crc(event)) {
      throw fail("the event's checksum does not match");
    }
    try {
      read_event(event, scalars);
    } catch (const std::runtime_error& e) {
      throw fail(std::string("malformed event (") + e.what() + ")");
    }
    at += 16 + static_cast<std::size_t>(length);
  }
  return scalars;
}

}  // namespace dls::util
