// Times the image-data path: reading Fashion-MNIST, computing its channel statistics, and
// the loader's throughput (shuffle + crop/flip + normalisation into float tensors).
//
//   dls_bench_images [fashion-mnist-dir] [batch-size]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "dls/data/image_dataset.h"
#include "dls/data/image_loader.h"
#include "dls/data/image_transform.h"
#include "dls/util/random.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "dls/cli/error_line.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Seconds to take every batch of one epoch.
double run_epoch(dls::data::ImageLoader& loader, std::int64_t epoch) {
  const auto start = Clock::now();
  loader.start_epoch(epoch);
  while (loader.next()) {
  }
  return seconds_since(start);
}

void loader_throughput(const std::string& name, std::shared_ptr<const dls::data::ImageSet> set,
                       std::size_t batch_size) {
  dls::data::ImageLoaderOptions options;
  options.batch_size = batch_size;
  options.augment = dls::data::default_augmentation(*set);
  options.normalization = dls::data::compute_channel_stats(*set);
  for (const std::size_t prefetch : {0, 2}) {
    options.prefetch = prefetch;
    dls::data::ImageLoader loader(set, options);
    run_epoch(loader, 0);  // warm-up: first touches of the memory
    const double t = run_epoch(loader, 1);
    std::printf("%-14s prefetch %zu: %7.0f images/s (%.3f s per epoch of %zu, batch %zu)\n", name.c_str(), prefetch,
                static_cast<double>(set->size()) / t, t, set->size(), batch_size);
  }
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  const std::string dir = argc > 1 ? argv[1] : dls::data::kFashionMnistDir;
  const std::string batch_text = argc > 2 ? argv[2] : "48";
  if (argc > 3 || batch_text.empty() || batch_text.size() > 7 ||
      batch_text.find_first_not_of("0123456789") != std::string::npos || std::stoul(batch_text) == 0) {
    std::fprintf(
        stderr,
        "error: usage: dls_bench_images [FASHION_MNIST_DIR [BATCH_SIZE]]; BATCH_SIZE '%s' is not in [1, 9999999]\n",
        batch_text.c_str());
    return 1;
  }
  const std::size_t batch_size = std::stoul(batch_text);
  try {
    const dls::util::RuntimeInfo runtime = dls::util::configure_runtime({});
    std::printf("intra-op threads: %d, BLAS: %s\n", runtime.threads, runtime.blas.c_str());

    auto start = Clock::now();
    auto train =
        std::make_shared<const dls::data::ImageSet>(dls::data::read_fashion_mnist(dir, dls::data::Split::kTrain));
    const double train_s = seconds_since(start);
    start = Clock::now();
    const dls::data::ImageSet test = dls::data::read_fashion_mnist(dir, dls::data::Split::kTest);
    std::printf("read Fashion-MNIST: train %zu images in %.3f s, test %zu in %.3f s\n", train->size(), train_s,
                test.size(), seconds_since(start));
    start = Clock::now();
    const dls::data::Normalization stats = dls::data::compute_channel_stats(*train);
    std::printf("channel statistics: mean %.4f std %.4f in %.3f s\n", stats.mean[0], stats.std[0],
                seconds_since(start));

    loader_throughput("Fashion-MNIST", train, batch_size);
    // CIFAR-10-shaped random images (3×32×32): the data are not on this machine.
    auto cifar = std::make_shared<dls::data::ImageSet>();
    cifar->channels = 3;
    cifar->height = cifar->width = 32;
    cifar->class_names = dls::data::cifar10_class_names();
    dls::util::Rng rng(1);
    cifar->pixels.resize(50000 * cifar->image_bytes());
    for (auto& p : cifar->pixels) p = static_cast<std::uint8_t>(rng.next_u64());
    for (std::size_t i = 0; i < 50000; ++i) cifar->labels.push_back(static_cast<std::uint8_t>(i % 10));
    loader_throughput("CIFAR-10 shape", cifar, batch_size);
    return 0;
  } catch (const std::exception& error) {
    return dls::cli::print_error_line(error);
  }
}
