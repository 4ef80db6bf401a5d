#include "dls/checkpoint/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/layers/saved_tensors.h"
#include "dls/util/file_io.h"

namespace dls::checkpoint {

const char* const kCheckpointFormat = "dlstudio-cpp checkpoint v2";

namespace {

std::atomic<std::uint64_t> files_opened_count{0};  // CheckpointReader::files_opened()

// v1 files (before checksums) are read as they are.
const char* const kFormatWithoutChecksum = "dlstudio-cpp checkpoint v1";

// After LibTorch's zip archive, a 20-byte trailer: the archive's length (8 bytes) and its
// CRC-32 (4 bytes), little-endian, then this tag. LibTorch's own zip reader does not check
// the CRCs the zip holds, so flipped bytes would otherwise load as if nothing happened.
constexpr char kTrailerTag[] = "DLSCRC32";  // 8 bytes at the very end
constexpr std::size_t kTrailerSize = 8 + 4 + 8;

std::string trailer(std::uint64_t length, std::uint32_t crc) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes += static_cast<char>((length >> (8 * i)) & 0xff);
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((crc >> (8 * i)) & 0xff);
  return bytes + std::string(kTrailerTag, 8);
}

// A checkpoint file read in pieces (pread), so that a checkpoint of gigabytes is never held
// twice in memory: one pass checks its CRC, then LibTorch's reader takes what it needs.
class CheckpointFile {
 public:
  explicit CheckpointFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status {};
    if (fd_ < 0 || ::fstat(fd_, &status) != 0) {
      throw CheckpointError(path + ": cannot open (" + std::strerror(errno) + ")");
    }
    size_ = static_cast<std::uint64_t>(status.st_size);
  }
  ~CheckpointFile() { ::close(fd_); }
  CheckpointFile(const CheckpointFile&) = delete;
  CheckpointFile& operator=(const CheckpointFile&) = delete;

  std::uint64_t size() const { return size_; }

  // Up to `n` bytes at `pos`; fewer only at the end of the file or on a read error.
  std::size_t read_at(std::uint64_t pos, void* buffer, std::size_t n) const {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, static_cast<char*>(buffer) + done, n - done, static_cast<off_t>(pos + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

  // The length of the archive before the checksum trailer, after checking the CRC it
  // records; without a trailer (a v1 file, checked later) the whole file. Sets *checksummed.
  std::uint64_t checked_archive_size(bool* checksummed) const {
    *checksummed = false;
    unsigned char t[kTrailerSize];
    if (size_ < kTrailerSize || read_at(size_ - kTrailerSize, t, kTrailerSize) != kTrailerSize ||
        std::memcmp(t + 12, kTrailerTag, 8) != 0) {
      return size_;
    }
    std::uint64_t length = 0;
    std::uint32_t crc = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | t[i];
    for (int i = 3; i >= 0; --i) crc = (crc << 8) | t[8 + i];
    if (length != size_ - kTrailerSize) {
      throw CheckpointError(path_ + ": corrupt checkpoint: its checksum trailer records " + std::to_string(length) +
                            " bytes, the file holds " + std::to_string(size_ - kTrailerSize));
    }
    std::vector<char> piece(std::size_t{1} << 20);
    std::uint32_t actual = 0;
    for (std::uint64_t pos = 0; pos < length;) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), length - pos));
      if (read_at(pos, piece.data(), want) != want) {
        throw CheckpointError(path_ + ": read error at byte " + std::to_string(pos) + " (" + std::strerror(errno) +
                              ")");
      }
      actual = util::crc32(actual, piece.data(), want);
      pos += want;
    }
    if (actual != crc) {
      char text[96];
      std::snprintf(text, sizeof(text), "CRC-32 %08x where %08x was written", actual, crc);
      throw CheckpointError(path_ + ": corrupt checkpoint: checksum mismatch (" + text +
                            "); the file was changed or damaged after it was written");
    }
    *checksummed = true;
    return length;
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The first line of a LibTorch error, without its C++ backtrace.
std::string short_message(const std::exception& e) {
  std::string text;
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    text = c10_error->what_without_backtrace();
  } else {
    text = e.what();
  }
  const auto newline = text.find('\n');
  return newline == std::string::npos ? text : text.substr(0, newline);
}

// `t` detached, as a tensor of its own: a part of a larger one (a head's WQ in an attention
// layer's fused tensor) is copied, so that the file holds it alone, as it did per head.
torch::Tensor standalone(const torch::Tensor& t) {
  if (!t.defined()) return t;
  const auto detached = t.detach();
  const bool whole =
      detached.is_contiguous() && detached.storage_offset() == 0 &&
      detached.storage().nbytes() == static_cast<std::size_t>(detached.numel() * detached.element_size());
  return whole ? detached : detached.clone();
}

std::string shape_of(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

// Appends the tensors of `archive` and of its nested modules, named prefix + dotted path.
void collect_tensors(torch::serialize::InputArchive& archive, const std::string& prefix, NamedTensors& out) {
  for (const auto& key : archive.keys()) {
    torch::Tensor tensor;
    torch::serialize::InputArchive child;
    if (archive.try_read(key, tensor)) {
      out.emplace_back(prefix + key, tensor);
    } else if (archive.try_read(key, child)) {
      out.emplace_back(prefix + key + ".", torch::Tensor());  // the module itself, tensors or not
      collect_tensors(child, prefix + key + ".", out);
    }
  }
}

// Copies the tensors of a module section into `module` by their saved names
// (layers/saved_tensors.h), checking that every module, parameter and buffer is there with
// its shape and that the section holds nothing else. Entries are checked in Module::save's
// order, so that a missing submodule is named before its tensors.
void load_checked(torch::serialize::InputArchive& archive, torch::nn::Module& module, const std::string& prefix) {
  NamedTensors stored_list;
  collect_tensors(archive, "", stored_list);
  std::unordered_map<std::string, torch::Tensor> stored(stored_list.begin(), stored_list.end());
  std::unordered_set<std::string> buffers;
  for (const auto& buffer : module.named_buffers()) buffers.insert(buffer.key());
  torch::NoGradGuard no_grad;
  std::unordered_set<std::string> expected;
  for (auto& [key, target] : saved_tensors(module)) {
    expected.insert(key);
    const auto found = stored.find(key);
    if (!target.defined()) {  // a submodule
      if (found == stored.end())
        throw std::runtime_error("missing module '" + prefix + key.substr(0, key.size() - 1) + "'");
      continue;
    }
    if (found == stored.end() || !found->second.defined()) {
      throw std::runtime_error("missing " + std::string(buffers.count(key) > 0 ? "buffer" : "parameter") + " '" +
                               prefix + key + "'");
    }
    if (found->second.sizes() != target.sizes()) {
      throw std::runtime_error("'" + prefix + key + "' has shape " + shape_of(found->second) +
                               " in the checkpoint but " + shape_of(target) + " in the model");
    }
    target.copy_(found->second);
  }
  for (const auto& [key, tensor] : stored_list) {
    if (expected.count(key) == 0) {
      const bool submodule = !key.empty() && key.back() == '.';
      throw std::runtime_error("'" + prefix + (submodule ? key.substr(0, key.size() - 1) : key) +
                               "' is in the checkpoint but not in the model");
    }
  }
}

// Writes `tensors` whose names start with `prefix` into `archive`, nesting a module per
// dotted component, as Module::save does.
void write_tensors(torch::serialize::OutputArchive& archive, const NamedTensors& tensors, const std::string& prefix) {
  std::vector<std::string> children;
  for (const auto& [name, tensor] : tensors) {
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (rest.empty()) continue;  // this module's own entry
    if (dot == std::string::npos) {
      archive.write(rest, tensor);
    } else if (std::find(children.begin(), children.end(), rest.substr(0, dot)) == children.end()) {
      children.push_back(rest.substr(0, dot));
    }
  }
  for (const auto& child : children) {
    torch::serialize::OutputArchive section(archive.compilation_unit());
    write_tensors(section, tensors, prefix + child + ".");
    archive.write(child, section);
  }
}

}  // namespace

CheckpointWriter::CheckpointWriter(const std::string& kind) {
  archive_.write("format", c10::IValue(std::string(kCheckpointFormat)));
  archive_.write("kind", c10::IValue(kind));
}

void CheckpointWriter::add_settings(const util::KeyValues& settings, const std::string& section) {
  settings_.merge(settings, section);
}

void CheckpointWriter::add_text(const std::string& name, const std::string& text) {
  archive_.write("text." + name, c10::IValue(text));
}

void CheckpointWriter::add_module(const std::string& name, const torch::nn::Module& module) {
  add_module_tensors(name, saved_tensors(module));
}

void CheckpointWriter::add_module_on_cpu(const std::string& name, const torch::nn::Module& module) {
  auto tensors = saved_tensors(module);
  // (Serialised by reference when the file is saved: the caller saves before training on.)
  for (auto& entry : tensors) entry.second = entry.second.defined() ? entry.second.to(torch::kCPU) : entry.second;
  add_module_tensors(name, tensors);
}

void CheckpointWriter::add_optimizer(const std::string& name, const torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive section(archive_.compilation_unit());
  optimizer.save(section);
  archive_.write("optimizer." + name, section);
}

void CheckpointWriter::add_tensor(const std::string& name, const torch::Tensor& tensor) {
  archive_.write("tensor." + name, tensor.detach().cpu());
}

void CheckpointWriter::add_module_tensors(const std::string& name, const NamedTensors& tensors) {
  NamedTensors standalone_tensors = tensors;
  for (auto& entry : standalone_tensors) entry.second = standalone(entry.second);
  torch::serialize::OutputArchive section(archive_.compilation_unit());
  write_tensors(section, standalone_tensors, "");
  archive_.write("module." + name, section);
}

void CheckpointWriter::save(const std::string& path) {
  archive_.write("settings", c10::IValue(settings_.to_text()));
  util::write_file_atomically(path, [&](const std::string& tmp) {
    util::FileWriter out(tmp, path);
    std::uint64_t length = 0;
    std::uint32_t crc = 0;
    try {
      // Called from LibTorch's zip writer (C code), which must see neither an exception nor
      // a short count (its destructor would then throw, ending the program): after a
      // failure the rest is dropped, and `out` reports the errno once the archive is done.
      archive_.save_to([&](const void* data, std::size_t size) -> std::size_t {
        if (out.write(data, size)) {
          crc = util::crc32(crc, data, size);
          length += size;
        }
        return size;
      });
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": cannot write checkpoint: " + short_message(e));
    }
    const std::string end = trailer(length, crc);
    out.write(end.data(), end.size());
    out.finish();
  });
}

CheckpointReader::CheckpointReader(const std::string& path, const std::string& expected_kind) : path_(path) {
  if (!std::filesystem::is_regular_file(path)) fail("no such checkpoint file");
  ++files_opened_count;
  bool checksummed = false;
  {
    const CheckpointFile file(path);
    const std::uint64_t size = file.checked_archive_size(&checksummed);
    try {
      archive_.load_from(
          [&file](std::uint64_t pos, void* buffer, std::size_t n) { return file.read_at(pos, buffer, n); },
          [size] { return static_cast<std::size_t>(size); });
    } catch (const std::exception& e) {
      fail("not a readable checkpoint (truncated or corrupt?): " + short_message(e));
    }
  }  // LibTorch has read every tensor: the file is closed
  c10::IValue value;
  if (!archive_.try_read("format", value) || !value.isString() ||
      (value.toStringRef() != kCheckpointFormat && value.toStringRef() != kFormatWithoutChecksum)) {
    fail("not a dlstudio-cpp checkpoint (no format tag)");
  }
  if (value.toStringRef() == kCheckpointFormat && !checksummed) {
    fail("corrupt checkpoint: its checksum trailer is missing or damaged (truncated?)");
  }
  if (!checksummed) spdlog::debug("{}: a checkpoint written before checksums (format v1): not verified", path);
  if (!archive_.try_read("kind", value) || !value.isString()) fail("checkpoint without a kind");
  kind_ = value.toStringRef();
  if (!expected_kind.empty()) check_kind(expected_kind);
  if (!archive_.try_read("settings", value) || !value.isString()) fail("checkpoint without settings");
  try {
    settings_ = util::KeyValues::from_text(value.toStringRef(), path);
  } catch (const std::exception& e) {
    throw CheckpointError(e.what());
  }
}

std::uint64_t CheckpointReader::files_opened() { return files_opened_count.load(); }

void CheckpointReader::check_kind(const std::string& expected_kind) const {
  if (kind_ != expected_kind) fail("a " + kind_ + " checkpoint, expected a " + expected_kind + " one");
}

void CheckpointReader::fail(const std::string& problem) const { throw CheckpointError(path_ + ": " + problem); }

std::string CheckpointReader::text(const std::string& name) const {
  c10::IValue value;
  if (!archive_.try_read("text." + name, value) || !value.isString()) fail("missing text '" + name + "'");
  return value.toStringRef();
}

bool CheckpointReader::has_text(const std::string& name) const {
  c10::IValue value;
  return archive_.try_read("text." + name, value) && value.isString();
}

bool CheckpointReader::has_module(const std::string& name) const {
  torch::serialize::InputArchive section;
  return archive_.try_read("module." + name, section);
}

std::vector<std::string> CheckpointReader::text_names() const {
  std::vector<std::string> names;
  for (const auto& key : archive_.keys()) {
    if (key.rfind("text.", 0) == 0) names.push_back(key.substr(5));
  }
  return names;
}

NamedTensors CheckpointReader::module_tensors(const std::string& name) const {
  torch::serialize::InputArchive section;
  if (!archive_.try_read("module." + name, section)) fail("missing module '" + name + "'");
  NamedTensors tensors;
  collect_tensors(section, "", tensors);
  return tensors;
}

std::string weights_module(const CheckpointReader& reader, Weights weights) {
  return weights == Weights::kEvaluation && reader.has_module("ema") ? "ema" : "model";
}

torch::Tensor CheckpointReader::tensor(const std::string& name) const {
  torch::Tensor value;
  if (!archive_.try_read("tensor." + name, value)) fail("missing tensor '" + name + "'");
  return value;
}

void CheckpointReader::load_module(const std::string& name, torch::nn::Module& module) const {
  torch::serialize::InputArchive section;
  if (!archive_.try_read("module." + name, section)) fail("missing module '" + name + "'");
  try {
    load_checked(section, module, name + ".");
  } catch (const std::exception& e) {
    fail("does not match the model: " + short_message(e));
  }
}

void CheckpointReader::load_optimizer(const std::string& name, torch::optim::Optimizer& optimizer) const {
  torch::serialize::InputArchive section;
  if (!archive_.try_read("optimizer." + name, section)) {
    // An average (checkpoint_eval --average) keeps weights only: a run starts from them instead.
    if (has_text("averaged_from"))
      fail("an average of checkpoints has no optimizer state to resume; --init-from starts a new run from its weights");
    fail("missing optimizer '" + name + "'");
  }
  try {
    optimizer.load(section);
  } catch (const std::exception& e) {
    fail("optimizer state does not match: " + short_message(e));
  }
}

void rethrow_naming_file(const CheckpointReader& reader) {
  try {
    throw;
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& error) {
    std::string message = error.what();
    message = message.substr(0, message.find('\n'));
    const std::string prefix = reader.path() + ": ";
    throw CheckpointError(message.rfind(prefix, 0) == 0 ? message : prefix + message);
  }
}

std::string checkpoints_kind(const std::string& run, const std::vector<std::string>& files) {
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    try {
      return CheckpointReader(*it).kind();
    } catch (const CheckpointError&) {
      if (files.size() == 1) throw;
    }
  }
  throw std::runtime_error(run + ": none of its " + std::to_string(files.size()) + " checkpoints is readable");
}

}  // namespace dls::checkpoint
