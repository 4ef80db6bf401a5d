#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dlstudio/names.h"
#include "dls/dlstudio/interop.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/vocabulary.h"
#include "dls/dlstudio/vocabularies.h"
#include "dls/layers/saved_tensors.h"
#include "dls/util/file_io.h"
#include "dls/util/create_folder.h"

namespace dls::dlstudio {

using checkpoint::CheckpointReader;
using checkpoint::kSeq2SeqKind;
using checkpoint::kViTCheckpointKind;
using checkpoint::load_seq2seq_checkpoint;
using checkpoint::load_vit_model;
using checkpoint::read_vit_contents;
using checkpoint::Weights;

namespace {

// DLStudio's blocks: its two layouts, and a position-wise FFN of 4M.
void check_blocks(const TransformerConfig& config, const std::string& path) {
  if (!config.dlstudio_family()) {
    throw std::runtime_error(path + ": the vaswani layout has no DLStudio counterpart (W_O, other shapes)");
  }
  if (!config.flattened() && config.ffn_multiplier() != 4) {
    throw std::runtime_error(path + ": DLStudio's position-wise FFN is 4M wide, this model's is " +
                             std::to_string(config.ffn_multiplier()) + "M");
  }
}

// rows [V + 2, ...] without this project's <pad> and <unk> rows (2 and 3).
torch::Tensor without_special_rows(const torch::Tensor& rows) {
  return torch::cat({rows.slice(0, 0, data::Vocabulary::kPad), rows.slice(0, data::Vocabulary::kSpecialCount)});
}

StateDict without_special_rows(StateDict state, const std::string& key) {
  for (auto& [name, tensor] : state) {
    if (name == key) tensor = without_special_rows(tensor);
  }
  return state;
}

// The words in DLStudio's order ('SOS', 'EOS', words...), one a line.
std::string dlstudio_word_lines(const std::vector<std::string>& words) {
  std::string text = "SOS\nEOS\n";
  for (std::size_t i = data::Vocabulary::kSpecialCount; i < words.size(); ++i) text += words[i] + "\n";
  return text;
}

std::string epoch_suffix(std::int64_t epoch) { return "_" + std::to_string(epoch); }

std::vector<std::string> export_seq2seq(const CheckpointReader& reader, const std::filesystem::path& dir,
                                        Weights weights) {
  const std::string& path = reader.path();
  const auto loaded = load_seq2seq_checkpoint(reader, weights);
  if (loaded.model.is_rnn()) {
    throw std::runtime_error(path + ": an RNN encoder-decoder; DLStudio's Transformers module reads transformers only");
  }
  const auto& config = loaded.info.settings.model;
  check_blocks(config.transformer(), path);
  // DLStudio pads with EOS and has no <pad>/<unk>: a run that trained a <pad> (the standard
  // loss) pads, embeds and normalises differently, so DLStudio would run another model.
  if (!loaded.info.settings.dlstudio_loss) {
    throw std::runtime_error(
        path +
        ": trained with <pad> padding, not DLStudio's loss; its <pad>/<unk> rows and padding differ from "
        "DLStudio's (EOS padding, no such words), so DLStudio would translate differently; train with "
        "--dlstudio-loss true to export");
  }
  // DLStudio's names are its roles: _en the source side, _es the target side.
  const auto& data = loaded.info.settings.data;
  const auto& source = data.reverse ? data.tgt_lang : data.src_lang;
  const auto& target = data.reverse ? data.src_lang : data.tgt_lang;
  if (source != "en" || target != "es") {
    spdlog::warn(
        "{}: translates {} into {}; DLStudio's file names stand for the sides, so embeddings_generator_en_* and "
        "vocab_en.txt hold the source ({}), embeddings_generator_es_* and vocab_es.txt the target ({})",
        path, source, target, source, target);
  }
  util::create_folder(dir);  // only once the model is known to export
  const auto epoch = loaded.info.state.file_epoch();
  const std::string tag = to_string(config.transformer().variant()) + epoch_suffix(epoch);
  auto embed_name = [](const std::string& name) {
    return name == "embedding.weight" ? std::string("embed.weight") : name;
  };
  const std::vector<std::pair<std::string, StateDict>> files{
      {"encoder_" + tag, dlstudio::dlstudio_state(*loaded.model.transformer()->master_encoder, dlstudio::same_name)},
      {"decoder_" + tag,
       without_special_rows(without_special_rows(dlstudio::dlstudio_state(*loaded.model.transformer()->master_decoder,
                                                                          dlstudio::same_name),
                                                 "out.weight"),
                            "out.bias")},
      {"embeddings_generator_en_" + tag,
       without_special_rows(dlstudio::dlstudio_state(*loaded.model.transformer()->embeddings_generator_en, embed_name),
                            "embed.weight")},
      {"embeddings_generator_es_" + tag,
       without_special_rows(dlstudio::dlstudio_state(*loaded.model.transformer()->embeddings_generator_es, embed_name),
                            "embed.weight")},
  };
  std::vector<std::string> written;
  for (const auto& [name, state] : files) {
    written.push_back((dir / name).string());
    write_state_dict_file(state, written.back());
  }
  for (const auto& [name, words] : {std::pair{kSourceWordList, &loaded.info.english_words},
                                    std::pair{kTargetWordList, &loaded.info.spanish_words}}) {
    written.push_back((dir / name).string());
    util::write_text_atomically(written.back(), dlstudio_word_lines(*words));
  }
  written.push_back((dir / kLanguagesFile).string());  // for an import of these files (not DLStudio's)
  util::write_text_atomically(written.back(), export_languages_text(source, target));
  return written;
}

std::vector<std::string> export_vit(const CheckpointReader& reader, const std::filesystem::path& dir, Weights weights) {
  const auto contents = read_vit_contents(reader);
  const auto& config = contents.settings.model;
  const auto& path = reader.path();
  check_blocks(config.transformer(), path);
  if (config.transformer().variant() != Variant::kFG)
    throw std::runtime_error(path + ": DLStudio's visTransformer is FG only");
  if (!config.stem().empty()) throw std::runtime_error(path + ": DLStudio's visTransformer has no convolutional stem");
  if (config.head_hidden_size() != 512) {
    throw std::runtime_error(path + ": DLStudio's head is 512 wide, this model's " +
                             std::to_string(config.head_hidden_size()));
  }
  const auto model = load_vit_model(reader, contents.settings, weights);
  util::create_folder(dir);  // only once the model is known to export
  // DLStudio's visTransformer heads have no bias: left out (the warning says how much).
  double largest_bias = 0;
  auto network_name = [&](const std::string& name) -> std::string {
    if (name.rfind("master_encoder.", 0) == 0) {
      if (name.find(".attention_heads_arr.") == std::string::npos || name.compare(name.size() - 5, 5, ".bias") != 0)
        return name;
      return "";
    }
    if (name.rfind("head_fc1.", 0) == 0) return "fc.1." + name.substr(9);
    if (name.rfind("head_fc2.", 0) == 0) return "fc.3." + name.substr(9);
    return "";
  };
  for (const auto& [name, tensor] : saved_parameters(*model)) {
    if (network_name(name).empty() && name.rfind("master_encoder.", 0) == 0) {
      largest_bias = std::max(largest_bias, tensor.abs().max().item().toDouble());
    }
  }
  if (largest_bias > 0) {
    spdlog::warn(
        "{}: DLStudio's visTransformer attention heads have no bias; this model's (largest |b| = {:.4g}) are left out",
        path, largest_bias);
  }
  const auto& patches = *model->patch_embedding_generator;
  const torch::Tensor weight = patches.linear ? patches.linear->weight : conv_weight_to_linear(patches.conv->weight);
  const torch::Tensor bias = patches.linear ? patches.linear->bias : patches.conv->bias;
  const auto epoch = std::to_string(contents.state.file_epoch());
  const std::vector<std::pair<std::string, StateDict>> files{
      {"checkpoint_0_for_epoch_" + epoch, dlstudio::dlstudio_state(*model, network_name)},
      {"checkpoint_1_for_epoch_" + epoch,
       {{"embed.weight", weight}, {"embed.bias", bias}, {"positional_encodings", patches.position_embedding}}},
      {"class_token.pt", {{"class_token", model->class_token}}},
  };
  std::vector<std::string> written;
  for (const auto& [name, state] : files) {
    written.push_back((dir / name).string());
    write_state_dict_file(state, written.back());
  }
  if (config.channels() == 3) {
    spdlog::warn(
        "{}: DLStudio's PatchEmbeddingGenerator reshapes RGB patches without a permute, so in DLStudio this "
        "model sees its patches differently (grayscale images are cut the same way)",
        path);
  }
  return written;
}

}  // namespace

void check_export_folder(const std::string& dir) {
  if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir)) {
    throw std::runtime_error(dir + ": a file; --export-dlstudio writes its files into a new or empty folder");
  }
  if (std::filesystem::exists(dir) && !std::filesystem::is_empty(dir)) {
    throw std::runtime_error(dir +
                             ": not an empty folder; --export-dlstudio writes into a new or empty one, "
                             "so that no other export's files are replaced");
  }
}

std::vector<std::string> export_dlstudio(const std::string& checkpoint, const std::string& dir, Weights weights) {
  check_export_folder(dir);
  return export_dlstudio(CheckpointReader(checkpoint), dir, weights);
}

std::vector<std::string> export_dlstudio(const CheckpointReader& reader, const std::string& dir, Weights weights) {
  namespace fs = std::filesystem;
  check_export_folder(dir);
  if (reader.kind() != kSeq2SeqKind && reader.kind() != kViTCheckpointKind) {
    throw std::runtime_error(reader.path() + ": a checkpoint of kind '" + reader.kind() +
                             "' has no DLStudio counterpart");
  }
  // A new folder is written beside `dir` and becomes `dir` when every file is complete; an
  // existing (empty) one -- a link to one, "." -- is written into and emptied again when a
  // write fails. Either way a failed write (a full disk, a file size limit) leaves no half
  // export behind, which made a second try refuse the folder.
  std::error_code error;
  const bool existing = fs::is_directory(dir, error);  // and empty: check_export_folder
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" -> "out"
  const fs::path staging = target.string() + ".partial-" + std::to_string(::getpid());
  const fs::path into = existing ? fs::path(dir) : staging;
  const auto remove_written = [&] {
    if (!existing) {
      fs::remove_all(staging, error);
      return;
    }
    for (const auto& entry : fs::directory_iterator(into, error)) fs::remove_all(entry.path(), error);
  };
  std::vector<std::string> written;
  try {
    written = reader.kind() == kSeq2SeqKind ? export_seq2seq(reader, into, weights) : export_vit(reader, into, weights);
    if (!existing) fs::rename(staging, target, error);
    if (error) throw std::runtime_error(dir + ": cannot put the export in place (" + error.message() + ")");
  } catch (const std::runtime_error& e) {
    const bool began_writing = existing ? !fs::is_empty(into, error) : fs::exists(staging, error);
    remove_written();
    if (!began_writing) throw;    // refused before the first file
    std::string what = e.what();  // named as the user named the folder
    for (auto at = what.find(staging.string()); at != std::string::npos; at = what.find(staging.string(), at)) {
      what.replace(at, staging.string().size(), target.string());
    }
    throw std::runtime_error(what + "; the files written before are removed");
  } catch (...) {
    remove_written();
    throw;
  }
  if (existing) return written;
  for (auto& path : written) path = (target / fs::path(path).filename()).string();
  return written;
}

}  // namespace dls::dlstudio
