#include "dls/eval/vit_evaluation.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>
#include <cstdio>
#include <filesystem>

#include <torch/torch.h>

#include "dls/util/image_panel.h"
#include "dls/util/table.h"
#include "dls/util/create_folder.h"

namespace dls::eval {

namespace {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// Image i of a planar C x H x W set as interleaved H x W x C bytes (what ImageView wants).
std::vector<std::uint8_t> interleaved(const data::ImageSet& set, std::size_t i) {
  const auto* src = set.image(i);
  const std::size_t plane = static_cast<std::size_t>(set.height) * static_cast<std::size_t>(set.width);
  std::vector<std::uint8_t> out(plane * static_cast<std::size_t>(set.channels));
  for (std::size_t p = 0; p < plane; ++p) {
    for (int c = 0; c < set.channels; ++c) out[p * set.channels + c] = src[c * plane + p];
  }
  return out;
}

}  // namespace

data::ImageSet load_test_images(const checkpoint::ViTCheckpointContents& contents, const ViTEvalOptions& options) {
  auto data = contents.settings.data;
  if (!options.data_dir.empty()) data.data_dir = options.data_dir;
  if (options.test_subset > 0) data.test_subset = options.test_subset;
  // Another folder than the run's: its test/ (or its classes, flat) labelled by the model's
  // class names, without a training layout to read.
  const bool other_folder = data.dataset == "image-folder" && !options.data_dir.empty();
  const auto folder =
      other_folder ? std::optional(data::list_evaluation_folder(data.data_dir, contents.class_names)) : std::nullopt;
  auto test = data::load_vit_images(data, data::Split::kTest, folder ? &*folder : nullptr);
  if (test.size() == 0 && data.dataset == "image-folder") {
    throw std::runtime_error(data.data_dir +
                             ": no test/ folder (DIR/train/CLASS/... and DIR/test/CLASS/...): no test images to "
                             "evaluate; the run's validation scores are in its metrics.csv");
  }
  return test;
}

ViTCheckpointResult evaluate_vit_checkpoint(const std::string& path, const data::ImageSet& test,
                                            const ViTEvalOptions& options) {
  const checkpoint::CheckpointReader reader(path, checkpoint::kViTCheckpointKind);
  auto contents = checkpoint::read_vit_contents(reader);
  auto model = checkpoint::load_vit_model(reader, contents.settings, options.weights);
  model->to(options.device);
  return evaluate_vit_model(model, path, std::move(contents), test, options);
}

ViTCheckpointResult evaluate_vit_model(visTransformer& model, std::string path,
                                       checkpoint::ViTCheckpointContents contents, const data::ImageSet& test,
                                       const ViTEvalOptions& options) {
  check_images_fit(test, contents.settings.model, "the test images");
  ViTCheckpointResult result;
  result.path = std::move(path);
  result.contents = std::move(contents);
  data::ImageLoaderOptions loader_options;
  loader_options.batch_size = 256;
  loader_options.shuffle = false;
  loader_options.normalization = result.contents.normalization;
  data::ImageLoader loader(std::make_shared<const data::ImageSet>(test), loader_options);
  const auto predictions = predict(model, loader, options.device);
  result.confusion = ConfusionMatrix::from_labels(predictions.labels, predictions.predicted, test.num_classes());
  result.test_loss = predictions.mean_loss;
  result.images_per_s = predictions.seconds > 0 ? static_cast<double>(predictions.size()) / predictions.seconds : 0;
  return result;
}

std::size_t best_result(const std::vector<ViTCheckpointResult>& results) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].confusion.accuracy() > results[best].confusion.accuracy()) best = i;
  }
  return best;
}

std::string format_checkpoint_table(const std::vector<ViTCheckpointResult>& results) {
  using util::Align;
  util::Table table(
      {"checkpoint", "epoch", "accuracy %", "class mean %", "test loss", "train loss", "train img/s", "eval img/s"},
      {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
       Align::kRight});
  for (const auto& r : results) {
    const auto& state = r.contents.state;
    table.add_row({std::filesystem::path(r.path).filename().string(), fixed(state.epochs_done(), 2),
                   fixed(100 * r.confusion.accuracy(), 2), fixed(100 * r.confusion.mean_class_accuracy(), 2),
                   fixed(r.test_loss, 4), fixed(state.train_loss, 4), fixed(state.examples_per_s, 0),
                   fixed(r.images_per_s, 0)});
  }
  std::string out = table.to_string();
  if (!results.empty()) {
    const auto& best = results[best_result(results)];
    out += "best: " + best.path + " (accuracy " + fixed(100 * best.confusion.accuracy(), 2) + " %, epoch " +
           fixed(best.contents.state.epochs_done(), 2) + ")\n";
  }
  return out;
}

std::vector<AttentionMap> class_token_attention_maps(visTransformer& model, const data::ImageSet& images,
                                                     const data::Normalization& normalization, std::size_t count,
                                                     const torch::Device& device) {
  count = std::min(count, images.size());
  if (count == 0) return {};
  std::vector<std::size_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = i;
  data::ImageLoaderOptions loader_options;
  loader_options.shuffle = false;
  loader_options.normalization = normalization;
  data::ImageLoader loader(std::make_shared<const data::ImageSet>(images), loader_options);
  const auto batch = loader.make_batch(indices, 0);
  const bool was_training = model->is_training();
  model->eval();
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> weights;
  const auto logits = model(batch.images.to(device), &weights);
  model->train(was_training);
  const auto attention =
      class_token_attention(weights.back()).to(torch::kCPU).to(torch::kDouble).contiguous();  // [B, H, P]
  torch::Tensor pixel;  // [B, T, T], heads averaged
  if (model->pixel_attention) {
    model->feature_map(batch.images.to(device), &pixel);
    pixel = pixel.mean(1).to(torch::kCPU).to(torch::kDouble).contiguous();
  }
  const auto predicted = logits.argmax(1).to(torch::kCPU);
  const auto heads = attention.size(1), patches = attention.size(2);
  std::vector<AttentionMap> maps(count);
  for (std::size_t b = 0; b < count; ++b) {
    auto& map = maps[b];
    map.image = b;
    map.label = images.labels[b];
    map.predicted = predicted[static_cast<std::int64_t>(b)].item<std::int64_t>();
    const auto* w = attention[static_cast<std::int64_t>(b)].data_ptr<double>();
    map.mean.assign(static_cast<std::size_t>(patches), 0.0);
    for (std::int64_t h = 0; h < heads; ++h) {
      map.heads.emplace_back(w + h * patches, w + (h + 1) * patches);
      for (std::int64_t p = 0; p < patches; ++p) map.mean[p] += w[h * patches + p] / static_cast<double>(heads);
    }
    if (pixel.defined()) {
      const auto T = pixel.size(1);
      map.pixel_side = static_cast<std::int64_t>(std::lround(std::sqrt(static_cast<double>(T))));
      const auto centre = (map.pixel_side / 2) * map.pixel_side + map.pixel_side / 2;
      const auto from_centre = pixel[static_cast<std::int64_t>(b)][centre].contiguous();
      const auto received = pixel[static_cast<std::int64_t>(b)].mean(0).contiguous();
      map.pixel_from_centre.assign(from_centre.data_ptr<double>(), from_centre.data_ptr<double>() + T);
      map.pixel_received.assign(received.data_ptr<double>(), received.data_ptr<double>() + T);
    }
  }
  return maps;
}

std::vector<std::string> save_attention_maps(const std::vector<AttentionMap>& maps, const data::ImageSet& images,
                                             std::int64_t grid_size, const std::string& dir) {
  util::create_folder(dir);
  const int grid = static_cast<int>(grid_size);
  util::OverlayOptions overlay;
  overlay.scale = std::max(2, 128 / std::max(1, images.height));
  std::vector<util::Canvas> mean_panels, head_panels, pixel_panels;
  std::size_t heads = 0;
  for (const auto& map : maps) {
    const auto pixels = interleaved(images, map.image);
    const util::ImageView view{pixels.data(), images.height, images.width, images.channels};
    const std::string caption = images.display_names[static_cast<std::size_t>(map.label)] + " -> " +
                                images.display_names[static_cast<std::size_t>(map.predicted)];
    mean_panels.push_back(util::attention_overlay(view, map.mean, grid, grid, caption, overlay));
    heads = map.heads.size();
    head_panels.push_back(util::image_panel(view, overlay.scale, caption));
    for (std::size_t h = 0; h < map.heads.size(); ++h) {
      head_panels.push_back(
          util::attention_overlay(view, map.heads[h], grid, grid, "head " + std::to_string(h), overlay));
    }
    if (map.pixel_side > 0) {
      const int side = static_cast<int>(map.pixel_side);
      pixel_panels.push_back(util::image_panel(view, overlay.scale, caption));
      pixel_panels.push_back(
          util::attention_overlay(view, map.pixel_from_centre, side, side, "from the centre pixel", overlay));
      pixel_panels.push_back(util::attention_overlay(view, map.pixel_received, side, side, "received (mean)", overlay));
    }
  }
  const auto mean_path = (std::filesystem::path(dir) / "attention_mean.png").string();
  const auto heads_path = (std::filesystem::path(dir) / "attention_heads.png").string();
  util::tile_panels(mean_panels, 4, "Class token attention, last layer (mean over heads)").save_png(mean_path);
  util::tile_panels(head_panels, static_cast<int>(heads) + 1, "Class token attention, last layer, per head")
      .save_png(heads_path);
  if (pixel_panels.empty()) return {mean_path, heads_path};
  const auto pixel_path = (std::filesystem::path(dir) / "pixel_attention.png").string();
  util::tile_panels(pixel_panels, 3, "Inter-pixel attention in the stem (mean over heads)").save_png(pixel_path);
  return {mean_path, heads_path, pixel_path};
}

}  // namespace dls::eval
