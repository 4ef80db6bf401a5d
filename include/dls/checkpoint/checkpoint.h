// Checkpoint files: one LibTorch archive holding named sections -- the settings that
// rebuild the model (key=value text), texts such as vocabularies, module weights,
// optimizer state and tensors (RNG state), followed by a CRC-32 of the archive's bytes.
// Written atomically; read back with the checksum and every section checked, so that a
// corrupt (flipped bytes), truncated or mismatched file gives one clear error naming the
// file and the problem. Files of format v1 (before checksums) are still read.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include "dls/layers/saved_tensors.h"
#include "dls/util/enum_names.h"
#include "dls/util/key_values.h"

namespace dls::checkpoint {

// A module's tensors by their dotted names ("encoder.0.W1.weight"), parameters and buffers
// alike; each submodule also appears as its name with a trailing dot and an undefined tensor
// ("encoder.0.dropout."), so that one without tensors (dropout) is written back too. The
// parameters go by the names they are saved under (layers/saved_tensors.h).
using NamedTensors = dls::NamedTensors;

// Raised for anything wrong with a checkpoint file; what() = "<path>: <problem>".
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CheckpointWriter {
 public:
  // kind: what the checkpoint holds ("seq2seq", "vit"); checked when reading.
  explicit CheckpointWriter(const std::string& kind);

  // Adds to the checkpoint's settings, under `section.` when one is named (the task's
  // description, then the loop's "state."); a key set again keeps its latest value.
  void add_settings(const util::KeyValues& settings, const std::string& section = "");
  void add_text(const std::string& name, const std::string& text);
  void add_module(const std::string& name, const torch::nn::Module& module);
  // The module's parameters and buffers as CPU copies, in add_module's layout (it reads back
  // as a module), leaving the module's own tensors where and what they are: a GPU run's
  // checkpoint without moving the model (whose tensors a CUDA graph and a flat gradient
  // buffer hold by address).
  void add_module_on_cpu(const std::string& name, const torch::nn::Module& module);
  void add_optimizer(const std::string& name, const torch::optim::Optimizer& optimizer);
  void add_tensor(const std::string& name, const torch::Tensor& tensor);
  // A module section from its tensors alone (as module_tensors() reads them), which
  // load_module() reads into a model of that layout.
  void add_module_tensors(const std::string& name, const NamedTensors& tensors);

  // Atomic: a temporary file in the same directory, flushed, then renamed to `path`. A
  // failed write (disk full, read-only, directory gone) throws std::runtime_error
  // "<path>: cannot write (<errno text>)" and leaves neither the temporary nor a changed `path`.
  void save(const std::string& path);

 private:
  torch::serialize::OutputArchive archive_;
  util::KeyValues settings_;
};

class CheckpointReader {
 public:
  // Opens and validates the file; throws CheckpointError when it is missing, not a
  // checkpoint of this project, truncated or corrupt, or of another kind than
  // `expected_kind` (empty: any kind).
  explicit CheckpointReader(const std::string& path, const std::string& expected_kind = "");

  // How many checkpoint files this process has opened to read (each read is of the whole file,
  // gigabytes for a large model): what the tests count that keep a job to one read per file.
  static std::uint64_t files_opened();

  const std::string& path() const { return path_; }
  const std::string& kind() const { return kind_; }
  // Throws CheckpointError when the checkpoint is of another kind than `expected_kind`.
  void check_kind(const std::string& expected_kind) const;
  const util::KeyValues& settings() const { return settings_; }

  std::string text(const std::string& name) const;
  bool has_text(const std::string& name) const;
  bool has_module(const std::string& name) const;
  std::vector<std::string> text_names() const;
  // Every tensor of a module section, without a model to read it into.
  NamedTensors module_tensors(const std::string& name) const;
  torch::Tensor tensor(const std::string& name) const;
  // Copies every parameter and buffer into `module`, checking that each is present with
  // the same shape and that the checkpoint holds nothing the module lacks.
  void load_module(const std::string& name, torch::nn::Module& module) const;
  void load_optimizer(const std::string& name, torch::optim::Optimizer& optimizer) const;

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  std::string path_;
  std::string kind_;
  util::KeyValues settings_;
  mutable torch::serialize::InputArchive archive_;
};

// In a catch block around reading `reader`'s contents: rethrows the exception in flight as a
// CheckpointError naming the file once ("<path>: <problem>", the first line of the problem: a
// c10::Error's backtrace left out); a CheckpointError passes as it is.
[[noreturn]] void rethrow_naming_file(const CheckpointReader& reader);

// The kind of a run's checkpoints (`files`, oldest first): that of its newest readable one. An
// unreadable one among several is passed over here (a report says so when it reaches it); a
// single one throws its CheckpointError; std::runtime_error naming `run` when none is readable.
std::string checkpoints_kind(const std::string& run, const std::vector<std::string>& files);

// Which weights a read returns from a checkpoint that may hold two sets: a run with
// --ema-decay saves the trained weights ("model", what --resume continues) and their moving
// average ("ema"), so that one run's checkpoints can be scored both ways
// (checkpoint_eval --weights).
enum class Weights {
  kEvaluation,  // the moving average when the checkpoint holds one, else the trained weights
  kTrained,     // the trained weights always
};

// What --weights accepts: "ema" (the default) is kEvaluation, "trained" kTrained.
inline const util::EnumNames<Weights> kWeightsNames("weights",
                                                    {{Weights::kEvaluation, "ema"}, {Weights::kTrained, "trained"}});
// Throws std::invalid_argument listing the names.
inline Weights weights_named(const std::string& name) { return kWeightsNames.parse(name); }

// The module name (in the checkpoint) of the weights `weights` asks for.
std::string weights_module(const CheckpointReader& reader, Weights weights);

// The format tag written into every checkpoint ("... v2": with the CRC-32 trailer).
extern const char* const kCheckpointFormat;

}  // namespace dls::checkpoint
