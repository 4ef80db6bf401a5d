#include <filesystem>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dlstudio/names.h"
#include "dls/dlstudio/interop.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/corpus.h"
#include "dls/data/languages.h"
#include "dls/dlstudio/vocabularies.h"
#include "dls/data/split.h"
#include "dls/data/vocabulary.h"
#include "dls/util/file_io.h"

namespace dls::dlstudio {

using checkpoint::CheckpointWriter;
using checkpoint::describe_run_state;
using checkpoint::describe_seq2seq_checkpoint;
using checkpoint::kSeq2SeqKind;
using checkpoint::Seq2SeqCheckpointInfo;
using checkpoint::ViTCheckpointContents;
using checkpoint::write_vit_checkpoint;

namespace {

// DLStudio's torch.save(state_dict) file; this project's own checkpoint, given instead, is
// named as such (the state-dict reader refused it by a pickle opcode).
StateDict read_dlstudio_state(const std::string& path) {
  try {
    return read_state_dict_file(path);
  } catch (const std::exception&) {
    bool ours = false;
    try {
      checkpoint::CheckpointReader reader(path);
      ours = true;
    } catch (const std::exception&) {
    }
    if (!ours) throw;
    throw std::runtime_error(path +
                             ": a dlstudio-cpp checkpoint, not DLStudio's torch.save(state_dict) file: evaluate it "
                             "as it is (checkpoint_eval " +
                             path + "), or write DLStudio's files from it with checkpoint_eval export");
  }
}

// The epoch DLStudio's file names end with ("encoder_FG_20", "checkpoint_0_for_epoch_3":
// 20, 3), so that an export of the import is named as the files were; 0 without one.
std::int64_t epoch_in_name(const std::string& path) {
  const auto name = std::filesystem::path(path).filename().string();
  const auto digits = name.find_last_not_of("0123456789");
  const auto tail = digits == std::string::npos ? name : name.substr(digits + 1);
  if (tail.empty() || tail.size() > 9 || digits == std::string::npos || name[digits] != '_') return 0;
  return std::stoll(tail);
}

constexpr double kNeverPredicted = -1e4;  // bias of the inserted <pad>/<unk> rows (out of the softmax anyway)

// DLStudio's words with this project's <pad> and <unk> at 2 and 3.
std::vector<std::string> with_specials(const std::vector<std::string>& dlstudio_words) {
  std::vector<std::string> words(data::Vocabulary::kSpecialWords,
                                 data::Vocabulary::kSpecialWords + data::Vocabulary::kSpecialCount);
  words.insert(words.end(), dlstudio_words.begin() + 2, dlstudio_words.end());
  return words;
}

// rows [V, ...] -> [V + 2, ...]: rows 0, 1, then pad_row and unk_row, then rows 2...
torch::Tensor insert_special_rows(const torch::Tensor& rows, const torch::Tensor& pad_row,
                                  const torch::Tensor& unk_row) {
  return torch::cat({rows.slice(0, 0, 2), pad_row.unsqueeze(0), unk_row.unsqueeze(0), rows.slice(0, 2)});
}

// The state with the tensor under `key` replaced by `tensor`.
StateDict replaced(StateDict state, const std::string& key, const torch::Tensor& tensor) {
  for (auto& [name, value] : state) {
    if (name == key) value = tensor;
  }
  return state;
}

void check_rows(const torch::Tensor& rows, std::size_t words, const std::string& file, const std::string& key,
                const std::string& archive, const std::string& vocab) {
  if (rows.size(0) != static_cast<std::int64_t>(words)) {
    throw std::runtime_error(file + ": '" + key + "' has " + std::to_string(rows.size(0)) + " rows, " + archive +
                             "'s " + vocab + " has " + std::to_string(words) + " words");
  }
}

// The sizes of DLStudio's encoder blocks from the first block's shapes. max_seq_length: L
// for the position-wise layout (the flattened layout's shapes give it).
// `blocks`: "basic_encoder_arr" or "basic_decoder_arr" (whose first block is read alike).
TransformerConfig blocks_config(const StateDict& state, const std::string& prefix, std::int64_t max_seq_length,
                                const std::string& file, const std::string& blocks = "basic_encoder_arr") {
  const std::string heads = prefix + blocks + ".0.self_attention_layer.attention_heads_arr.";
  const auto M = tensor_at(state, prefix + blocks + ".0.norm1.weight", file).size(0);
  const auto H = count_indices(state, heads);
  if (H == 0 || M % H != 0)
    throw std::runtime_error(file + ": " + std::to_string(H) + " heads do not divide M = " + std::to_string(M));
  const auto s = M / H;
  const auto width = tensor_at(state, heads + "0.WQ.weight", file).size(0);
  TransformerConfig config;
  config.embedding_size(M).num_heads(H);
  if (width == s) {
    config.layout(Layout::kPositionwise)
        .max_seq_length(max_seq_length)
        .ffn_multiplier(tensor_at(state, prefix + blocks + ".0.W1.weight", file).size(0) / M);
  } else if (width % s == 0) {
    config.layout(Layout::kDLStudio).max_seq_length(width / s);
  } else {
    throw std::runtime_error(file + ": WQ of width " + std::to_string(width) +
                             " fits neither layout (s = " + std::to_string(s) + ")");
  }
  return config;
}

// "position-wise blocks (M = 8, 2 heads, FFN 4M)", "flattened blocks (M = 4, 2 heads, L = 5)"
std::string blocks_text(const TransformerConfig& config) {
  const bool flat = config.flattened();
  return std::string(flat ? "flattened" : "position-wise") + " blocks (M = " + std::to_string(config.embedding_size()) +
         ", " + std::to_string(config.num_heads()) + " heads, " +
         (flat ? "L = " + std::to_string(config.max_seq_length())
               : "FFN " + std::to_string(config.ffn_multiplier()) + "M") +
         ")";
}

// The four files of one DLStudio transformer agree on the blocks' layout and sizes: read from
// each file's own shapes and checked against the encoder's before any tensor is combined, so
// that files of two different runs are refused naming the file that disagrees.
void check_seq2seq_files_agree(const TransformerConfig& encoder_blocks, const StateDict& decoder,
                               const StateDict& embeddings_en, const StateDict& embeddings_es,
                               const DLStudioSeq2SeqFiles& files) {
  const auto decoder_blocks = blocks_config(decoder, "", files.max_seq_length, files.decoder, "basic_decoder_arr");
  const bool same = decoder_blocks.layout() == encoder_blocks.layout() &&
                    decoder_blocks.embedding_size() == encoder_blocks.embedding_size() &&
                    decoder_blocks.num_heads() == encoder_blocks.num_heads() &&
                    decoder_blocks.max_seq_length() == encoder_blocks.max_seq_length() &&
                    (encoder_blocks.flattened() || decoder_blocks.ffn_multiplier() == encoder_blocks.ffn_multiplier());
  if (!same) {
    throw std::runtime_error(files.decoder + ": " + blocks_text(decoder_blocks) + ", but the encoder (" +
                             files.encoder + ") has " + blocks_text(encoder_blocks) +
                             ": the four files must come from one DLStudio run");
  }
  const auto M = encoder_blocks.embedding_size();
  const std::vector<std::tuple<const StateDict*, const std::string*, const char*>> widths{
      {&decoder, &files.decoder, "out.weight"},
      {&embeddings_en, &files.embeddings_en, "embed.weight"},
      {&embeddings_es, &files.embeddings_es, "embed.weight"}};
  for (const auto& [state, file, key] : widths) {
    const torch::Tensor tensor = tensor_at(*state, key, *file);
    if (tensor.dim() != 2 || tensor.size(1) != M) {
      throw std::runtime_error(*file + ": '" + key + "' has shape " + dlstudio::shape_text(tensor) + ", the encoder (" +
                               files.encoder + ") needs [V, " + std::to_string(M) + "]");
    }
  }
}

}  // namespace

std::string import_dlstudio_seq2seq(const DLStudioSeq2SeqFiles& files, const std::string& output) {
  const auto encoder = read_dlstudio_state(files.encoder);
  const auto decoder = read_dlstudio_state(files.decoder);
  const auto embeddings_en = read_dlstudio_state(files.embeddings_en);
  const auto embeddings_es = read_dlstudio_state(files.embeddings_es);
  const auto vocabularies = read_dlstudio_vocabularies(files.vocab_archive);
  const auto& english = vocabularies.english;
  const auto& spanish = vocabularies.spanish;

  Seq2SeqConfig config;
  config.transformer(blocks_config(encoder, "", files.max_seq_length, files.encoder));
  check_seq2seq_files_agree(config.transformer(), decoder, embeddings_en, embeddings_es, files);
  config.transformer().variant(files.variant);
  config.num_encoders(count_indices(encoder, "basic_encoder_arr."))
      .num_decoders(count_indices(decoder, "basic_decoder_arr."))
      .src_vocab_size(static_cast<std::int64_t>(english.size()) + 2)
      .tgt_vocab_size(static_cast<std::int64_t>(spanish.size()) + 2)
      .pad_index(data::Vocabulary::kPad)
      .dlstudio_outputs(true);  // DLStudio's words only, as in the files
  config.validate();
  Seq2SeqTransformer model(config);
  model->eval();

  const torch::Tensor out_weight = tensor_at(decoder, "out.weight", files.decoder);
  const torch::Tensor out_bias = tensor_at(decoder, "out.bias", files.decoder);
  check_rows(out_weight, spanish.size(), files.decoder, "out.weight", files.vocab_archive, "vocab_es");
  const auto M = config.transformer().embedding_size();
  auto decoder_state =
      replaced(decoder, "out.weight", insert_special_rows(out_weight, torch::zeros({M}), torch::zeros({M})));
  decoder_state =
      replaced(decoder_state, "out.bias",
               insert_special_rows(out_bias, torch::full({}, kNeverPredicted), torch::full({}, kNeverPredicted)));
  auto widened_embedding = [&](const StateDict& state, const std::string& file, std::size_t words,
                               const std::string& vocab) {
    const torch::Tensor rows = tensor_at(state, "embed.weight", file);
    check_rows(rows, words, file, "embed.weight", files.vocab_archive, vocab);
    // <pad> embeds as EOS, DLStudio's padding; <unk> as zeros.
    return replaced(state, "embed.weight",
                    insert_special_rows(rows, rows[data::Vocabulary::kEos], torch::zeros_like(rows[0])));
  };
  auto embed_name = [](const std::string& name) {
    return name == "embedding.weight" ? std::string("embed.weight") : name;
  };
  dlstudio::load_parameters(*model->master_encoder, encoder, dlstudio::same_name, files.encoder);
  dlstudio::load_parameters(*model->master_decoder, decoder_state, dlstudio::same_name, files.decoder);
  dlstudio::load_parameters(*model->embeddings_generator_en,
                            widened_embedding(embeddings_en, files.embeddings_en, english.size(), "vocab_en"),
                            embed_name, files.embeddings_en);
  dlstudio::load_parameters(*model->embeddings_generator_es,
                            widened_embedding(embeddings_es, files.embeddings_es, spanish.size(), "vocab_es"),
                            embed_name, files.embeddings_es);

  Seq2SeqCheckpointInfo info;
  info.settings.model = config;
  info.settings.data.max_words = static_cast<int>(config.transformer().max_seq_length()) - 2;
  info.settings.dlstudio_loss = true;  // EOS padding, as the model was trained
  const auto word_lists = word_list_folder(files.vocab_archive);
  auto [source, target] =
      word_lists.empty() ? std::pair<std::string, std::string>{} : read_export_languages(word_lists);
  for (const auto& [flag, code, side] :
       {std::tuple{"--src-lang", &files.src_lang, &source}, std::tuple{"--tgt-lang", &files.tgt_lang, &target}}) {
    if (code->empty()) continue;
    data::check_language_code(*code, flag);
    *side = *code;
  }
  if (!source.empty()) info.settings.data.src_lang = source;
  if (!target.empty()) info.settings.data.tgt_lang = target;
  if (word_lists.empty()) {  // DLStudio's archive: its pairs are the data
    info.settings.data.data_path = util::absolute_path(files.vocab_archive);  // evaluated from any folder
    data::CorpusOptions corpus_options;
    corpus_options.max_words = info.settings.data.max_words;
    const auto corpus = data::read_corpus(files.vocab_archive, corpus_options);
    // DLStudio trained on every pair; the held-out split here (a tenth of the pairs, at most
    // 2000: the training programs' default) is only the default set checkpoint_eval scores.
    const auto& data_settings = info.settings.data;
    info.split = data::split_by_english(corpus.pairs, data_settings.split_seed,
                                        data::validation_size(corpus.pairs.size(), data_settings.validation_fraction,
                                                              static_cast<std::size_t>(data_settings.validation_pairs)))
                     .definition;
  }
  info.english_words = with_specials(english);
  info.spanish_words = with_specials(spanish);
  CheckpointWriter writer(kSeq2SeqKind);
  describe_seq2seq_checkpoint(writer, info);
  info.state.completed_epochs = epoch_in_name(files.encoder);  // DLStudio's, kept for an export
  describe_run_state(writer, info.state);                      // not trained here
  writer.add_module("model", *model);
  writer.save(output);
  return config.summary();
}

std::string import_dlstudio_vit(const DLStudioViTFiles& files, const std::string& output) {
  const auto network = read_dlstudio_state(files.network);
  const auto patches = read_dlstudio_state(files.patch_embedding);
  const torch::Tensor positions = tensor_at(patches, "positional_encodings", files.patch_embedding);
  const torch::Tensor embed = tensor_at(patches, "embed.weight", files.patch_embedding);
  if (positions.dim() != 3 || embed.dim() != 2)
    throw std::runtime_error(files.patch_embedding + ": not a PatchEmbeddingGenerator");
  const auto P = positions.size(1);
  // p*p*C values per patch: only one of C = 3 and C = 1 makes p*p a square.
  const auto patch_values = embed.size(1);
  auto side_of = [](std::int64_t square) {
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(square))));
    return side * side == square ? side : 0;
  };
  const std::int64_t channels = patch_values % 3 == 0 && side_of(patch_values / 3) > 0 ? 3 : 1;
  const auto p = side_of(patch_values / channels), grid = side_of(P);
  if (p == 0 || grid == 0)
    throw std::runtime_error(files.patch_embedding + ": " + std::to_string(P) + " patches of " +
                             std::to_string(patch_values) + " values are not square patches of a square image");
  settings::ViTTrainSettings settings;
  settings.data.dataset = channels == 3 ? "cifar10" : "fashion-mnist";
  settings.data.normalization = "dlstudio";
  auto transformer = blocks_config(network, "master_encoder.", P + 1, files.network);
  if (transformer.max_seq_length() != P + 1) {
    throw std::runtime_error(files.network + ": flattened heads for " + std::to_string(transformer.max_seq_length()) +
                             " tokens, the patch embedding has " + std::to_string(P) + " patches + the class token");
  }
  settings.model.transformer(transformer.variant(Variant::kFG))
      .image_size(grid * p)
      .channels(channels)
      .patch_size(p)
      .num_encoders(count_indices(network, "master_encoder.basic_encoder_arr."))
      .head_hidden_size(tensor_at(network, "fc.1.weight", files.network).size(0))
      .num_classes(tensor_at(network, "fc.3.weight", files.network).size(0));
  settings.model.validate();
  visTransformer model(settings.model);
  model->eval();

  bool has_class_token = false;
  for (const auto& entry : network) has_class_token |= entry.first == "class_token";
  auto network_name = [&](const std::string& name) -> std::string {
    if (name.rfind("master_encoder.", 0) == 0) {
      const bool head_bias =
          name.find(".attention_heads_arr.") != std::string::npos && name.compare(name.size() - 5, 5, ".bias") == 0;
      return head_bias ? "" : name;  // DLStudio's visTransformer heads have no bias
    }
    if (name.rfind("head_fc1.", 0) == 0) return "fc.1." + name.substr(9);
    if (name.rfind("head_fc2.", 0) == 0) return "fc.3." + name.substr(9);
    if (name == "class_token" && has_class_token) return name;
    return "";  // the patch embedding's, from the other file (and the class token)
  };
  dlstudio::load_parameters(*model, network, network_name, files.network);
  auto patch_name = [](const std::string& name) {
    return name == "position_embedding" ? std::string("positional_encodings")
                                        : "embed." + name.substr(name.find('.') + 1);
  };
  dlstudio::load_parameters(*model->patch_embedding_generator, patches, patch_name, files.patch_embedding);
  // DLStudio does not save its class token (not a registered parameter); this project's
  // export writes it beside the network, as class_token.pt.
  const auto token_file = (std::filesystem::path(files.network).parent_path() / "class_token.pt").string();
  if (!has_class_token && std::filesystem::is_regular_file(token_file)) {
    const auto token = tensor_at(read_dlstudio_state(token_file), "class_token", token_file);
    if (token.sizes() != model->class_token.sizes()) {
      throw std::runtime_error(token_file + ": a class token of shape " + dlstudio::shape_text(token) +
                               ", the network's is " + dlstudio::shape_text(model->class_token));
    }
    torch::NoGradGuard no_grad;
    model->class_token.copy_(token);
    spdlog::info("class token from {}", token_file);
  } else if (!has_class_token) {
    torch::NoGradGuard no_grad;
    model->class_token.normal_(0.0, 1.0);
    spdlog::warn(
        "{}: DLStudio does not save its class token (not a registered parameter): a N(0, 1) draw stands in, "
        "as in DLStudio's own evaluation (an export of this project's writes class_token.pt beside it)",
        files.network);
  }
  if (channels == 3) {
    spdlog::warn(
        "{}: DLStudio reshapes RGB patches without a permute (one of its patch vectors mixes three same-colour "
        "patches); here each vector is one patch, so an RGB model sees its patches differently",
        files.patch_embedding);
  }
  ViTCheckpointContents contents;
  contents.state.completed_epochs = epoch_in_name(files.network);
  contents.settings = settings;
  contents.normalization = data::Normalization::dlstudio(static_cast<int>(channels));
  write_vit_checkpoint(output, contents, model, nullptr);
  return settings.model.summary();
}

bool DLStudioImportRequest::requested() const {
  const auto& s = seq2seq;
  return !(s.encoder + s.decoder + s.embeddings_en + s.embeddings_es + s.vocab_archive + vit.network +
           vit.patch_embedding)
              .empty();
}

std::string import_dlstudio(const DLStudioImportRequest& request) {
  const auto& s = request.seq2seq;
  const bool is_vit = !request.vit.network.empty() || !request.vit.patch_embedding.empty();
  const std::vector<std::pair<const char*, const std::string*>> needed =
      is_vit ? std::vector<std::pair<const char*, const std::string*>>{{"--dlstudio-vit", &request.vit.network},
                                                                       {"--dlstudio-patch-embedding",
                                                                        &request.vit.patch_embedding}}
             : std::vector<std::pair<const char*, const std::string*>>{{"--dlstudio-encoder", &s.encoder},
                                                                       {"--dlstudio-decoder", &s.decoder},
                                                                       {"--dlstudio-embeddings-en", &s.embeddings_en},
                                                                       {"--dlstudio-embeddings-es", &s.embeddings_es},
                                                                       {"--dlstudio-vocab", &s.vocab_archive}};
  for (const auto& [flag, file] : needed) {
    if (file->empty())
      throw std::runtime_error(std::string(flag) + ": needed to import DLStudio's " +
                               (is_vit ? "visTransformer" : "transformer"));
  }
  for (const auto& [flag, file] : needed) {  // a FIFO or device would be waited on, not read
    std::error_code error;
    if (!std::filesystem::exists(*file, error))
      throw std::runtime_error(std::string(flag) + " " + *file + ": no such file");
    if (file == &s.vocab_archive && !word_list_folder(*file).empty()) continue;  // an export's word lists
    if (!std::filesystem::is_regular_file(*file, error)) {
      throw std::runtime_error(std::string(flag) + " " + *file + ": not a regular file (" +
                               (file == &s.vocab_archive ? "DLStudio's archive, a gzip pickle of (dataset, vocab_en, "
                                                           "vocab_es)"
                                                         : "DLStudio's torch.save file") +
                               ")");
    }
  }
  if (is_vit && !(s.encoder + s.decoder + s.embeddings_en + s.embeddings_es + s.vocab_archive).empty()) {
    throw std::runtime_error("--dlstudio-vit: a visTransformer or a seq2seq transformer, not both");
  }
  // Never over a file: it may be a run's checkpoint or an earlier import (as export never
  // writes into a folder that holds files).
  std::error_code error;
  if (std::filesystem::exists(request.output, error) || std::filesystem::is_symlink(request.output, error)) {
    throw std::runtime_error(request.output +
                             ": already exists; the import writes a new file: name another with --dlstudio-output "
                             "(or remove this one)");
  }
  const auto summary =
      is_vit ? import_dlstudio_vit(request.vit, request.output) : import_dlstudio_seq2seq(s, request.output);
  spdlog::info("imported DLStudio's {} into {}: {}", is_vit ? "visTransformer" : "Transformer" + to_string(s.variant),
               request.output, summary);
  return request.output;
}

}  // namespace dls::dlstudio
