#include "dls/eval/vit_predictions.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

namespace dls::eval {

void check_images_fit(const data::ImageSet& images, const ViTConfig& model, const std::string& what) {
  if (images.height == model.image_size() && images.width == model.image_size() &&
      images.channels == model.channels() && static_cast<std::int64_t>(images.num_classes()) == model.num_classes()) {
    return;
  }
  throw std::runtime_error(what + " are " + std::to_string(images.height) + "x" + std::to_string(images.width) + "x" +
                           std::to_string(images.channels) + " images in " + std::to_string(images.num_classes()) +
                           " classes; the model expects " + std::to_string(model.image_size()) + "x" +
                           std::to_string(model.image_size()) + "x" + std::to_string(model.channels()) + " in " +
                           std::to_string(model.num_classes()));
}

double Predictions::accuracy() const {
  if (labels.empty()) return NAN;
  std::size_t correct = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) correct += predicted[i] == labels[i];
  return static_cast<double>(correct) / static_cast<double>(labels.size());
}

Predictions predict(visTransformer& model, data::ImageLoader& loader, const torch::Device& device) {
  const auto start = std::chrono::steady_clock::now();
  const bool was_training = model->is_training();
  model->eval();
  torch::NoGradGuard no_grad;
  Predictions result;
  double loss_sum = 0;
  loader.start_epoch(0);
  while (auto batch = loader.next()) {
    const auto labels = batch->labels.to(device);
    const auto logits = model(batch->images.to(device)).to(torch::kFloat);  // fp32 under autocast too
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    const auto predicted = logits.argmax(1).to(torch::kCPU).contiguous();
    const auto* p = predicted.data_ptr<std::int64_t>();
    result.predicted.insert(result.predicted.end(), p, p + predicted.numel());
    const auto* l = batch->labels.data_ptr<std::int64_t>();
    result.labels.insert(result.labels.end(), l, l + batch->labels.numel());
  }
  model->train(was_training);
  result.mean_loss = result.labels.empty() ? NAN : loss_sum / static_cast<double>(result.labels.size());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace dls::eval
