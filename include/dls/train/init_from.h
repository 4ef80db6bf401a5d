// --init-from CKPT: a new run that starts from another run's weights (fairseq's
// --restore-file --reset-optimizer, OpenNMT's -train_from, nanoGPT's init_from): the model is
// built as for a fresh run -- from its own data, settings and vocabularies -- and then takes
// the checkpoint's tensors where they fit; the optimizer, schedule, progress and run directory
// are the new run's own.
//
// How a tensor fits: by name (a plan may rename a prefix: a language model's
// `embeddings_generator.` is a translation model's target side, `embeddings_generator_es.`),
// and by shape. Tensors whose rows are tokens (embeddings, the output layer) are copied row by
// row by token, so that a run on other data, whose vocabulary differs, keeps what the
// checkpoint learned of every token both know; the rest of their rows keep their fresh
// initialisation. Position embeddings on a grid of patches are resampled to another grid
// (another image size). A tensor the plan allows to start over (a classifier for another number of
// classes) does so when its shape differs; any other difference in shape is refused in one
// line, as is a checkpoint of which nothing fits.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "dls/checkpoint/checkpoint.h"

namespace dls::train {

struct InitPlan {
  // (checkpoint prefix, model prefix): a checkpoint tensor named prefix + rest is the model's
  // model-prefix + rest. Unlisted names are the same in both.
  std::vector<std::pair<std::string, std::string>> renames;
  // A model tensor whose dim-0 rows are tokens: `ours` the model's vocabulary (words or
  // pieces, index order), `theirs` the checkpoint's.
  struct TokenRows {
    std::string name;
    const std::vector<std::string>* ours = nullptr;
    const std::vector<std::string>* theirs = nullptr;
    std::string unit = "token";  // what a row stands for, in the report: "token", "class"
  };
  std::vector<TokenRows> token_rows;
  // Model-name prefixes whose tensors start fresh when their shape differs.
  std::vector<std::string> fresh_when_resized;
  // Model tensors [1, P, M], one vector per patch of a square grid (a ViT's position
  // embeddings): a checkpoint's of another square grid is resampled to the model's, as timm's
  // resample_abs_pos_embed does (bicubic, antialiased), so that a model goes on at another
  // image size.
  std::vector<std::string> resampled_grids;
  // Model tensors that read the image's channels (the first convolution, or the patch
  // projection): when the checkpoint's model reads `their_channels` and this one
  // `our_channels`, one of them 1, the tensor is adapted as timm's adapt_input_conv does --
  // summed over the channels for grey, the grey channel repeated and divided by C for colour --
  // so that a grey image (R = G = B in colour) gives the values it gave the checkpoint's model.
  enum class ChannelLayout {
    kConv,        // [O, C, kh, kw]
    kPatchLinear  // [M, p*p*C], channel-last within a patch (PatchEmbeddingGenerator's Linear)
  };
  struct InputChannels {
    std::string name;
    ChannelLayout layout = ChannelLayout::kConv;
  };
  std::vector<InputChannels> input_channels;
  std::int64_t their_channels = 0, our_channels = 0;
  // The flags that set the model's shapes, for the refusal of a tensor of another shape.
  std::string shape_flags = "--layout, --embedding-size, --heads, --max-words, ...";
};

// What became of each of the model's parameters.
struct InitLine {
  std::string name;   // the model's
  std::string shape;  // the model's: "[256, 1024]"
  // "loaded", "by token: 4,210 of 5,000 rows", "by class: 1 of 2 rows", "fresh: not in the
  // checkpoint", ...
  std::string outcome;
};

struct InitReport {
  std::string source;   // the checkpoint file
  std::string weights;  // the checkpoint section read: "model" or "ema"
  std::vector<InitLine> lines;
  std::int64_t loaded = 0;          // values taken from the checkpoint (rows by token count theirs)
  std::int64_t total = 0;           // values of the model's parameters
  std::vector<std::string> unused;  // checkpoint tensors the model has no place for
  // Tensors by token or class whose rows hardly met the checkpoint's (fewer than half), one
  // line per vocabulary: "embeddings_generator_en.embedding.weight: 9 of its 364 tokens are
  // the checkpoint's; another language, direction or tokenizer than the checkpoint's?"
  std::vector<std::string> warnings;

  // One line: "--init-from FILE (ema): 14.2 M of 18.9 M values (75.1 %) from it; 3 tensors by
  // token, 2 fresh, 12 of its tensors unused".
  std::string summary() const;
  // What became of the parameters, as a table (util/table.h): every one, or those not
  // loaded as they are (rows by token, fresh, tied) and a count of the others.
  std::string table(bool every_parameter) const;
};

// Copies `theirs` (a checkpoint's tensors, named as its model names them) into `model`'s
// parameters by `plan`, under no_grad, on the parameters' own device and type; buffers are
// the model's own (positional encodings, masks). `source` names the checkpoint in the report
// and in errors. Throws std::runtime_error "--init-from SOURCE: NAME is [a, b] there and
// [c, d] here (...)" for a shape that differs outside the plan, and "--init-from SOURCE: no
// tensor of it fits this model" when nothing loads.
InitReport init_parameters(torch::nn::Module& model, const checkpoint::NamedTensors& theirs, const InitPlan& plan,
                           const std::string& source);

}  // namespace dls::train
