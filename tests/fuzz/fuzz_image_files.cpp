// The image readers on any bytes: as an IDX image file, an IDX label file and a CIFAR-10
// batch file, and through gzip (all of them accept .gz content). An image set must hold
// exactly its images' bytes.
#include <cstdlib>
#include <exception>

#include "dls/data/image_dataset.h"
#include "dls/util/file_io.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = dls::fuzz::as_string(data, size);
  const dls::fuzz::InputFile file(bytes);
  try {
    dls::data::ImageSet set;
    dls::data::read_idx_images(file.path(), set);
    if (set.pixels.size() % (set.image_bytes() == 0 ? 1 : set.image_bytes()) != 0) std::abort();
  } catch (const std::exception&) {
  }
  try {
    (void)dls::data::read_idx_labels(file.path(), 10);
  } catch (const std::exception&) {
  }
  try {
    const auto set = dls::data::read_cifar10_files({file.path()});
    if (set.pixels.size() != set.size() * set.image_bytes()) std::abort();
  } catch (const std::exception&) {
  }
  try {
    (void)dls::util::gunzip(bytes, "fuzz");
  } catch (const std::exception&) {
  }
  return 0;
}
