#include "dls/checkpoint/checkpoint.h"

#include <filesystem>
#include <sstream>

#include <torch/torch.h>

#include "dls/util/file_io.h"

namespace dls::checkpoint {

const char* const kCheckpointFormat = "dlstudio-cpp checkpoint v1";

namespace {

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

std::string shape_of(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

void load_checked(torch::serialize::InputArchive& archive, torch::nn::Module& module,
                  const std::string& prefix) {
  torch::NoGradGuard no_grad;
  std::vector<std::string> expected;
  auto copy_in = [&](const std::string& key, torch::Tensor& target, bool is_buffer) {
    torch::Tensor stored;
    if (!archive.try_read(key, stored, is_buffer)) {
      throw std::runtime_error("missing " + std::string(is_buffer ? "buffer" : "parameter") +
                               " '" + prefix + key + "'");
    }
    if (stored.sizes() != target.sizes()) {
      throw std::runtime_error("'" + prefix + key + "' has shape " + shape_of(stored) +
                               " in the checkpoint but " + shape_of(target) + " in the model");
    }
    target.copy_(stored);
    expected.push_back(key);
  };
  for (auto& parameter : module.named_parameters(/*recurse=*/false)) {
    copy_in(parameter.key(), parameter.value(), false);
  }
  for (auto& buffer : module.named_buffers(/*recurse=*/false)) {
    copy_in(buffer.key(), buffer.value(), true);
  }
  for (auto& child : module.named_children()) {
    torch::serialize::InputArchive child_archive;
    if (!archive.try_read(child.key(), child_archive)) {
      throw std::runtime_error("missing module '" + prefix + child.key() + "'");
    }
    load_checked(child_archive, *child.value(), prefix + child.key() + ".");
    expected.push_back(child.key());
  }
  for (const auto& key : archive.keys()) {
    if (std::find(expected.begin(), expected.end(), key) == expected.end()) {
      throw std::runtime_error("'" + prefix + key + "' is in the checkpoint but not in the model");
    }
  }
}

}  // namespace

CheckpointWriter::CheckpointWriter(const std::string& kind) {
  archive_.write("format", c10::IValue(std::string(kCheckpointFormat)));
  archive_.write("kind", c10::IValue(kind));
}

void CheckpointWriter::set_settings(const util::KeyValues& settings) {
  archive_.write("settings", c10::IValue(settings.to_text()));
}

void CheckpointWriter::add_text(const std::string& name, const std::string& text) {
  archive_.write("text." + name, c10::IValue(text));
}

void CheckpointWriter::add_module(const std::string& name, const torch::nn::Module& module) {
  torch::serialize::OutputArchive section(archive_.compilation_unit());
  module.save(section);
  archive_.write("module." + name, section);
}

void CheckpointWriter::add_optimizer(const std::string& name,
                                     const torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive section(archive_.compilation_unit());
  optimizer.save(section);
  archive_.write("optimizer." + name, section);
}

void CheckpointWriter::add_tensor(const std::string& name, const torch::Tensor& tensor) {
  archive_.write("tensor." + name, tensor.detach().cpu());
}

void CheckpointWriter::save(const std::string& path) {
  util::write_file_atomically(path, [&](const std::string& tmp) {
    try {
      archive_.save_to(tmp);
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": cannot write checkpoint: " + short_message(e));
    }
  });
}

CheckpointReader::CheckpointReader(const std::string& path, const std::string& expected_kind)
    : path_(path) {
  if (!std::filesystem::is_regular_file(path)) fail("no such checkpoint file");
  try {
    archive_.load_from(path);
  } catch (const std::exception& e) {
    fail("not a readable checkpoint (truncated or corrupt?): " + short_message(e));
  }
  c10::IValue value;
  if (!archive_.try_read("format", value) || !value.isString() ||
      value.toStringRef() != kCheckpointFormat) {
    fail("not a dlstudio-cpp checkpoint (no format tag)");
  }
  if (!archive_.try_read("kind", value) || !value.isString()) fail("checkpoint without a kind");
  kind_ = value.toStringRef();
  if (!expected_kind.empty() && kind_ != expected_kind) {
    fail("a " + kind_ + " checkpoint, expected a " + expected_kind + " one");
  }
  if (!archive_.try_read("settings", value) || !value.isString()) fail("checkpoint without settings");
  try {
    settings_ = util::KeyValues::from_text(value.toStringRef(), path);
  } catch (const std::exception& e) {
    throw CheckpointError(e.what());
  }
}

void CheckpointReader::fail(const std::string& problem) const {
  throw CheckpointError(path_ + ": " + problem);
}

std::string CheckpointReader::text(const std::string& name) const {
  c10::IValue value;
  if (!archive_.try_read("text." + name, value) || !value.isString()) fail("missing text '" + name + "'");
  return value.toStringRef();
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

void CheckpointReader::load_optimizer(const std::string& name,
                                      torch::optim::Optimizer& optimizer) const {
  torch::serialize::InputArchive section;
  if (!archive_.try_read("optimizer." + name, section)) fail("missing optimizer '" + name + "'");
  try {
    optimizer.load(section);
  } catch (const std::exception& e) {
    fail("optimizer state does not match: " + short_message(e));
  }
}

}  // namespace dls::checkpoint
