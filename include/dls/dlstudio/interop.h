// DLStudio checkpoints in and out: the state dicts DLStudio's example scripts save with
// torch.save, turned into a self-describing checkpoint of this project (import), and a
// checkpoint of this project written as state dicts that DLStudio's classes load with
// load_state_dict(strict=True) (export).
//
// DLStudio's files (Transformers.py, 2.5.x; the flattened layout of the slides has the same
// names with other shapes):
//   TransformerFG/PreLN  encoder_FG_<epoch>                     MasterEncoder
//                        decoder_FG_<epoch>                     MasterDecoderWithMasking
//                        embeddings_generator_{en,es}_FG_<epoch>  EmbeddingsGenerator: embed.weight
//   visTransformer       checkpoint_0_for_epoch_<n>  the visTransformer: master_encoder.*
//                                                    (WQ/WK/WV without bias), fc.1, fc.3
//                        checkpoint_1_for_epoch_<n>  PatchEmbeddingGenerator: embed.*,
//                                                    positional_encodings [1, P, M]
// Parameter names under master_encoder/master_decoder are DLStudio's here as well. The sizes
// (M, heads, layers, layout, FFN width, vocabularies, patches) are read from the shapes.
//
// Vocabularies: DLStudio's are 'SOS', 'EOS', then the words (no <pad>, no <unk>); this
// project's put <pad> and <unk> at 2 and 3. Import inserts those two rows -- <pad>'s embedding
// is EOS's (DLStudio pads with EOS), <unk>'s is zero, and the decoder's output layer gives
// both a score of -1e4, so that they are never predicted and every other log-probability is
// DLStudio's -- and export removes them again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/layers/transformer_config.h"

namespace dls::dlstudio {

struct DLStudioSeq2SeqFiles {
  std::string encoder, decoder, embeddings_en, embeddings_es;
  // en_es_xformer_8_90000.tar.gz: (dataset, vocab_en, vocab_es), whose pairs become the data;
  // or an export's word lists (their folder, or one of them: vocabularies.h), with no pairs.
  std::string vocab_archive;
  // The pair, ISO 639 codes; "": an export's languages.toml beside its word lists, else en, es.
  std::string src_lang, tgt_lang;
  Variant variant = Variant::kFG;    // not visible in the weights
  std::int64_t max_seq_length = 10;  // L; position-wise layout only (flattened: from the shapes)
};

struct DLStudioViTFiles {
  std::string network;          // checkpoint_0_for_epoch_<n>
  std::string patch_embedding;  // checkpoint_1_for_epoch_<n>
};

// Reads DLStudio's files, checks every name and shape, and writes a seq2seq checkpoint of
// this project to `output` whose data is the vocabulary archive (so checkpoint_eval can score
// it). Throws std::runtime_error with one line naming the file and the first missing,
// unexpected or mismatched key with both shapes. Returns the model's summary.
std::string import_dlstudio_seq2seq(const DLStudioSeq2SeqFiles& files, const std::string& output);

// The same for a visTransformer (FG; image size and channels from the patch shapes: 3
// channels -> CIFAR-10, 1 -> Fashion-MNIST). DLStudio never saves its class token (it is not
// a registered parameter): unless network holds a "class_token", a N(0, 1) draw stands in,
// as in DLStudio's own evaluation, and a warning says so.
std::string import_dlstudio_vit(const DLStudioViTFiles& files, const std::string& output);

// What checkpoint_eval's --dlstudio-* flags give: one model's files, seq2seq or ViT.
struct DLStudioImportRequest {
  DLStudioSeq2SeqFiles seq2seq;
  DLStudioViTFiles vit;
  std::string output = "dlstudio_import.pt";  // the checkpoint written
  bool requested() const;
};

// Checks that the request names all the files of one model (std::runtime_error naming the
// flag that is missing or out of place) and that request.output does not exist (an import
// never replaces a file), imports it into request.output and logs what it read. Returns
// request.output.
std::string import_dlstudio(const DLStudioImportRequest& request);

// Writes a checkpoint of this project (seq2seq or ViT, dlstudio or positionwise layout) into
// `dir` under DLStudio's file names, plus vocab_en.txt / vocab_es.txt (DLStudio's order, one
// word a line) for seq2seq and class_token.pt for a ViT. Returns the paths written. Throws
// std::runtime_error for a model DLStudio's classes cannot hold (vaswani layout, FFN width
// other than 4M, a ViT with a stem, PreLN ViT, head width other than 512), for a seq2seq run
// that did not train with DLStudio's loss (its <pad> padding and <pad>/<unk> rows are not
// DLStudio's: DLStudio would run another model), and for a `dir`
// that exists and is not an empty folder (nothing is written then). `weights`: which of the
// checkpoint's weights (checkpoint.h).
std::vector<std::string> export_dlstudio(const std::string& checkpoint, const std::string& dir,
                                         checkpoint::Weights weights = checkpoint::Weights::kEvaluation);
// Throws the error above when `dir` exists and is not an empty folder: a check before a
// checkpoint of gigabytes is read.
void check_export_folder(const std::string& dir);
// The same from a checkpoint already open.
std::vector<std::string> export_dlstudio(const checkpoint::CheckpointReader& reader, const std::string& dir,
                                         checkpoint::Weights weights = checkpoint::Weights::kEvaluation);

}  // namespace dls::dlstudio
