// A trained visTransformer ready to classify one image at a time, with the attention that
// led to its answer: what translate_server serves for a ViT checkpoint (POST /classify),
// as eval::Translator is for a seq2seq one.
//
//   auto classifier = dls::eval::ImageClassifier::load("runs/vit");  // a run or one .pt file
//   auto pixels = dls::eval::model_pixels(file_bytes, classifier.config());  // a PNG or JPEG
//   auto result = classifier.classify(pixels);  // result.probabilities, result.attention
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/models/vit.h"
#include "dls/util/image_file.h"

namespace dls::eval {

struct ImageClassification {
  std::vector<double> probabilities;  // [classes], softmax of the logits
  std::int64_t predicted = 0;         // argmax
  // The class token's attention over the patches (vit.h class_token_attention), row-major
  // on the grid x grid patches: [layer][head][P].
  std::vector<std::vector<std::vector<double>>> attention;
  // Attention rollout (Abnar & Zuidema 2020): per layer the heads' mean plus the residual
  // (0.5 A + 0.5 I, rows renormalised), multiplied from the first layer up; the class
  // token's row over the patches, renormalised to sum 1: [P].
  std::vector<double> rollout;
  double model_ms = 0;  // the forward pass
};

// The model's input bytes (planar [C, H, W], as data::ImageSet holds them) for a PNG's or
// JPEG's bytes of any size: decoded no larger than the model needs (util::ImageDecoding),
// resized to the model's size and, for a grey model, its luminance (util::planar_pixels), as
// vit_train --image-folder prepares its images. Throws util::ImageTooLarge when the header
// claims more than max_pixels, std::invalid_argument when the bytes are not such an image.
std::vector<std::uint8_t> model_pixels(const std::string& image_file_bytes, const ViTConfig& model,
                                       long long max_pixels = util::kMaxImagePixels);

class ImageClassifier {
 public:
  // A checkpoint file, or a run directory: its best.pt when there is one, else its newest.
  // Throws (CheckpointError, one line) when it is not a ViT checkpoint of this project.
  static ImageClassifier load(const std::string& checkpoint_or_run, const std::string& device = "cpu",
                              checkpoint::Weights weights = checkpoint::Weights::kEvaluation);
  // From a checkpoint opened already (a program that read its kind first reads the file once).
  static ImageClassifier load(const checkpoint::CheckpointReader& reader, const std::string& device = "cpu",
                              checkpoint::Weights weights = checkpoint::Weights::kEvaluation);

  // pixels: what model_pixels returns. The model runs under torch::NoGradGuard, in
  // evaluation mode; one call at a time (the server's batcher serialises them).
  ImageClassification classify(const std::vector<std::uint8_t>& pixels);

  const ViTConfig& config() const { return contents_.settings.model; }
  const checkpoint::ViTCheckpointContents& contents() const { return contents_; }
  // The dataset's class names ("T-shirt/top", ...), or "class <i>" when they do not match.
  const std::vector<std::string>& class_names() const { return class_names_; }
  const std::string& checkpoint_file() const { return checkpoint_file_; }
  const torch::Device& device() const { return device_; }

 private:
  ImageClassifier(std::string file, checkpoint::ViTCheckpointContents contents, visTransformer model,
                  torch::Device device);

  std::string checkpoint_file_;
  checkpoint::ViTCheckpointContents contents_;
  visTransformer model_;
  torch::Device device_;
  std::vector<std::string> class_names_;
};

}  // namespace dls::eval
