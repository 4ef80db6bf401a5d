#include "dls/eval/vit_data.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

namespace dls::eval {

data::ImageSet load_vit_images(const settings::ViTDataSettings& data, data::Split split) {
  data::ImageSet images;
  if (data.dataset == "fashion-mnist") {
    images = data::read_fashion_mnist(data.data_dir.empty() ? data::kFashionMnistDir : data.data_dir, split);
  } else if (data.dataset == "cifar10") {
    if (data.data_dir.empty())
      throw std::invalid_argument("CIFAR-10 needs --data-dir (the folder of data_batch_1.bin ... test_batch.bin)");
    images = data::read_cifar10(data.data_dir, split);
  } else {
    throw std::invalid_argument("unknown dataset '" + data.dataset + "' (expected cifar10 or fashion-mnist)");
  }
  const std::size_t subset = split == data::Split::kTrain ? data.train_subset : data.test_subset;
  return subset > 0 ? data::take_first(images, subset) : images;
}

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

data::Normalization resolve_vit_normalization(const settings::ViTDataSettings& data, const data::ImageSet& train) {
  if (data.normalization == "dlstudio") return data::Normalization::dlstudio(train.channels);
  if (data.normalization == "dataset") return data::compute_channel_stats(train);
  throw std::invalid_argument("unknown normalisation '" + data.normalization + "' (expected dlstudio or dataset)");
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
