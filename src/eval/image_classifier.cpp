#include "dls/eval/image_classifier.h"

#include <chrono>
#include <stdexcept>

#include <torch/torch.h>

#include "dls/checkpoint/run_id.h"
#include "dls/data/image_dataset.h"
#include "dls/data/image_transform.h"
#include "dls/util/device.h"

namespace dls::eval {

namespace {

std::vector<std::string> names_of(const checkpoint::ViTCheckpointContents& contents) {
  auto names = checkpoint::class_names_of(contents);
  if (!names.empty()) return names;
  const auto classes = static_cast<std::size_t>(contents.settings.model.num_classes());
  for (std::size_t i = 0; i < classes; ++i) names.push_back("class " + std::to_string(i));
  return names;
}

std::vector<double> to_vector(const torch::Tensor& t) {
  const auto c = t.to(torch::kCPU).to(torch::kDouble).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

// Attention rollout over the layers' weights (each [1, H, P+1, P+1]): the class token's
// row over the patches, [P], summing to 1.
std::vector<double> rollout_of(const std::vector<torch::Tensor>& weights) {
  torch::Tensor rolled;
  for (const auto& layer : weights) {
    auto a = layer[0].to(torch::kDouble).mean(0);            // [P+1, P+1], heads averaged
    a = 0.5 * a + 0.5 * torch::eye(a.size(0), a.options());  // the residual path
    a = a / a.sum(1, true);
    rolled = rolled.defined() ? a.matmul(rolled) : a;
  }
  auto cls = rolled[0].slice(0, 1);
  return to_vector(cls / cls.sum());
}

}  // namespace

std::vector<std::uint8_t> model_pixels(const std::string& image_file_bytes, const ViTConfig& model,
                                       long long max_pixels) {
  util::ImageDecoding decoding;
  decoding.max_pixels = max_pixels;
  decoding.min_side = model.image_size();
  return util::planar_pixels(util::decode_image(image_file_bytes, decoding), model.channels(), model.image_size());
}

ImageClassifier ImageClassifier::load(const std::string& checkpoint_or_run, const std::string& device,
                                      checkpoint::Weights weights) {
  return load(checkpoint::open_run_checkpoint(checkpoint_or_run, checkpoint::kViTCheckpointKind), device, weights);
}

ImageClassifier ImageClassifier::load(const checkpoint::CheckpointReader& reader, const std::string& device,
                                      checkpoint::Weights weights) {
  reader.check_kind(checkpoint::kViTCheckpointKind);
  auto contents = checkpoint::read_vit_contents(reader);
  auto model = checkpoint::load_vit_model(reader, contents.settings, weights);
  return ImageClassifier(reader.path(), std::move(contents), model, util::select_device(device));
}

ImageClassifier::ImageClassifier(std::string file, checkpoint::ViTCheckpointContents contents, visTransformer model,
                                 torch::Device device)
    : checkpoint_file_(std::move(file)),
      contents_(std::move(contents)),
      model_(std::move(model)),
      device_(device),
      class_names_(names_of(contents_)) {
  model_->to(device_);
  model_->eval();
}

ImageClassification ImageClassifier::classify(const std::vector<std::uint8_t>& pixels) {
  const auto& config = contents_.settings.model;
  const auto side = static_cast<int>(config.image_size()), channels = static_cast<int>(config.channels());
  // The normalisation the run trained with, by the code its loader used (data::ImageLoader).
  const auto& stored = contents_.normalization;
  const data::ImageTransform transform(
      channels, side, side,
      stored.mean.empty() && stored.std.empty() ? data::Normalization::dlstudio(channels) : stored);
  if (pixels.size() != static_cast<std::size_t>(channels * side * side))
    throw std::invalid_argument("classify: the pixels are not the model's image size");
  auto input = torch::empty({1, channels, side, side}, torch::kFloat);
  transform.apply(pixels.data(), input.data_ptr<float>());
  const auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> weights;
  const auto logits = model_(input.to(device_), &weights).to(torch::kFloat);  // [1, classes]
  ImageClassification result;
  result.probabilities = to_vector(torch::softmax(logits[0], 0));
  result.predicted = logits[0].argmax().item<std::int64_t>();
  for (const auto& layer : weights) {
    const auto cls = class_token_attention(layer)[0];  // [H, P]
    auto& heads = result.attention.emplace_back();
    for (std::int64_t h = 0; h < cls.size(0); ++h) heads.push_back(to_vector(cls[h]));
  }
  result.rollout = rollout_of(weights);
  result.model_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace dls::eval
