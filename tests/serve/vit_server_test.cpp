// TranslateServer over a ViT checkpoint in this process: POST /classify answers what
// checkpoint_eval predicts for the same test image (its loader, its normalisation), with
// the attention of every layer and head; every refusal is a one-line JSON error.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <thread>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "dls/checkpoint/run_id.h"
#include "dls/eval/vit_evaluation.h"
#include "dls/serve/translate_server.h"
#include "dls/util/canvas.h"
#include "dls_httplib.h"
#include "support/image_files.h"
#include "support/vit_runs.h"

namespace dls::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One tiny Fashion-MNIST run (28x28x1, patch 7: 4x4 patches, 1 layer of 2 heads), 1 epoch.
const fs::path& vit_run() {
  static const fs::path run = test::train_tiny_vit_run("vit_server", 1);
  return run;
}

// Image i of a planar set as a PNG (grey: r = g = b).
std::string png_of(const data::ImageSet& set, std::size_t i) {
  util::Canvas canvas(set.width, set.height);
  const auto* pixels = set.image(i);
  for (int y = 0; y < set.height; ++y)
    for (int x = 0; x < set.width; ++x) {
      const auto v = pixels[y * set.width + x];
      canvas.set_pixel(x, y, util::Rgb{v, v, v});
    }
  return canvas.encode_png();
}

// A server on a free port for the test's lifetime.
struct Serving {
  explicit Serving(eval::ImageClassifier& classifier, ServeSettings settings = {}) {
    settings.port = 0;
    settings.http.connections = 4;
    server = std::make_unique<TranslateServer>(classifier, settings);
    port = server->bind();
    thread = std::thread([this] { server->serve(); });
  }
  ~Serving() {
    server->stop();
    thread.join();
  }
  std::unique_ptr<TranslateServer> server;
  int port = 0;
  std::thread thread;
};

TEST(VitServer, ClassifiesAnUploadedImageAsCheckpointEvalDoes) {
  auto classifier = eval::ImageClassifier::load(vit_run().string());
  Serving serving(classifier);
  httplib::Client client("127.0.0.1", serving.port);

  // checkpoint_eval's way: the test set through an ImageLoader with the stored normalisation.
  const auto reader = checkpoint::open_run_checkpoint(vit_run().string(), checkpoint::kViTCheckpointKind);
  const auto contents = checkpoint::read_vit_contents(reader);
  auto model = checkpoint::load_vit_model(reader, contents.settings);
  const auto test_set = eval::load_test_images(contents, {});
  data::ImageLoaderOptions options;
  options.shuffle = false;
  options.batch_size = 4;
  options.normalization = contents.normalization;
  data::ImageLoader loader(std::make_shared<const data::ImageSet>(test_set), options);
  const auto predictions = eval::predict(model, loader, torch::kCPU);
  model->eval();
  torch::NoGradGuard no_grad;
  const auto batch = loader.make_batch({0, 1, 2, 3}, 0);
  const auto probabilities = torch::softmax(model(batch.images), 1);

  for (std::size_t i = 0; i < 4; ++i) {
    const auto res = client.Post("/classify", png_of(test_set, i), "image/png");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    const auto body = json::parse(res->body);
    EXPECT_EQ(body["index"].get<std::int64_t>(), predictions.predicted[i]);
    EXPECT_EQ(body["class"], data::fashion_mnist_class_names()[predictions.predicted[i]]);
    ASSERT_EQ(body["probabilities"].size(), 10u);
    for (std::int64_t c = 0; c < 10; ++c)
      EXPECT_NEAR(body["probabilities"][c].get<double>(), probabilities[static_cast<std::int64_t>(i)][c].item<double>(),
                  1e-5);
    ASSERT_EQ(body["top"].size(), 5u);
    EXPECT_EQ(body["top"][0]["index"], body["index"]);
    EXPECT_GE(body["top"][0]["probability"].get<double>(), body["top"][4]["probability"].get<double>());
    EXPECT_EQ(body["grid"], 4);
    ASSERT_EQ(body["attention"].size(), 1u);     // layers
    ASSERT_EQ(body["attention"][0].size(), 2u);  // heads
    ASSERT_EQ(body["attention"][0][1].size(), 16u);
    const auto rollout = body["rollout"].get<std::vector<double>>();
    ASSERT_EQ(rollout.size(), 16u);
    EXPECT_NEAR(std::accumulate(rollout.begin(), rollout.end(), 0.0), 1.0, 1e-3);
    EXPECT_TRUE(body["timings"].contains("model_ms"));
  }
  const auto top2 = client.Post("/classify?top=2", png_of(test_set, 0), "image/png");
  ASSERT_TRUE(top2);
  EXPECT_EQ(json::parse(top2->body)["top"].size(), 2u);
  const auto model_info = client.Get("/model");
  ASSERT_TRUE(model_info);
  const auto info = json::parse(model_info->body);
  EXPECT_EQ(info["kind"], "vit");
  EXPECT_EQ(info["classes"].size(), 10u);
  EXPECT_EQ(info["image_size"], 28);
  EXPECT_EQ(info["checkpoint"], reader.path());
}

TEST(VitServer, EveryRefusalIsAOneLineJsonError) {
  auto classifier = eval::ImageClassifier::load(vit_run().string());
  ServeSettings settings;
  settings.http.max_body_bytes = 4096;
  Serving serving(classifier, settings);
  httplib::Client client("127.0.0.1", serving.port);
  const auto expect_error = [](const httplib::Result& res, int status, const std::string& part) {
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, status) << res->body;
    const auto body = json::parse(res->body);
    const auto message = body["error"].get<std::string>();
    EXPECT_NE(message.find(part), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  };
  util::Canvas grey(28, 28, util::Rgb{90, 90, 90});
  expect_error(client.Post("/classify", "this is text, not an image", "image/png"), 400, "not a PNG or JPEG image");
  expect_error(client.Post("/classify", "", "image/png"), 400, "not a PNG or JPEG image");
  expect_error(client.Post("/classify", grey.encode_png().substr(0, 60), "image/png"), 400, "PNG");
  const auto jpeg = test::jpeg_of(test::solid_image(40, 30, 10, 10, 10));
  expect_error(client.Post("/classify", jpeg.substr(0, jpeg.size() / 2), "image/jpeg"), 400, "a damaged JPEG image");
  expect_error(client.Post("/classify", std::string(5000, 'x'), "image/png"), 413, "larger than 4096 bytes");
  // A small file claiming a huge image: refused from its header, nothing allocated for it.
  expect_error(client.Post("/classify", test::claiming_size(jpeg, 8000, 8000), "image/jpeg"), 413,
               "a JPEG image of 8000x8000 pixels, larger than 16777216 (--max-image-pixels)");
  // Within the limit but with its data missing: decoded near the model's size, found damaged.
  expect_error(client.Post("/classify", test::claiming_size(jpeg, 4000, 4000), "image/jpeg"), 400,
               "a damaged JPEG image");
  expect_error(client.Post("/classify?top=0", grey.encode_png(), "image/png"), 400, "\"top\"");
  expect_error(client.Get("/classify"), 405, "takes POST");
  expect_error(client.Post("/translate", R"({"sentences": ["a"]})", "application/json"), 404, "not found");
  const auto ok = client.Post("/classify", grey.encode_png(), "image/png");  // a grey image of the right size
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  // Any size, colour for a grey model, and JPEG: resized and converted as --classify does.
  for (const auto& body :
       {util::Canvas(32, 32).encode_png(), util::Canvas(28, 28, util::Rgb{200, 30, 30}).encode_png(), jpeg}) {
    const auto answered = client.Post("/classify", body, "image/png");
    ASSERT_TRUE(answered);
    EXPECT_EQ(answered->status, 200) << answered->body;
  }
}

TEST(VitServer, TheImageSizeLimitIsTheServersSetting) {
  auto classifier = eval::ImageClassifier::load(vit_run().string());
  ServeSettings settings;
  settings.limits.max_image_pixels = 40 * 30 - 1;
  Serving serving(classifier, settings);
  httplib::Client client("127.0.0.1", serving.port);
  const auto refused = client.Post("/classify", test::jpeg_of(test::solid_image(40, 30, 10, 10, 10)), "image/jpeg");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 413);
  EXPECT_NE(refused->body.find("a JPEG image of 40x30 pixels, larger than 1199"), std::string::npos) << refused->body;
  const auto taken = client.Post("/classify", test::jpeg_of(test::solid_image(39, 30, 10, 10, 10)), "image/jpeg");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->status, 200) << taken->body;
}

}  // namespace
}  // namespace dls::serve
