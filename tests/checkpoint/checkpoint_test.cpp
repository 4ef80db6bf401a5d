#include "dls/checkpoint/checkpoint.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <torch/torch.h>

#include "dls/checkpoint/rng_state.h"
#include "dls/util/file_io.h"
#include "support/tmpfs_mount.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

struct NetImpl : torch::nn::Module {
  explicit NetImpl(int hidden) {
    fc1 = register_module("fc1", torch::nn::Linear(4, hidden));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})));
    counter = register_buffer("counter", torch::zeros({1}));
  }
  torch::nn::Linear fc1{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  torch::Tensor counter;
};
TORCH_MODULE(Net);

std::string write_checkpoint(const fs::path& dir, Net& net, torch::optim::Adam& optimizer) {
  util::KeyValues settings;
  settings.set("hidden", 8);
  settings.set("lr", 0.001);
  CheckpointWriter writer("toy");
  writer.add_settings(settings);
  writer.add_text("vocab", "SOS\nEOS\nhola\n");
  writer.add_module("net", *net);
  writer.add_optimizer("adam", optimizer);
  writer.add_tensor("rng", cpu_generator_state());
  const std::string path = (dir / "toy.pt").string();
  writer.save(path);
  return path;
}

// A new Net(8) and its Adam written by write_checkpoint into `dir`: the checkpoint's path.
std::string fresh_toy_checkpoint(const fs::path& dir) {
  Net net(8);
  torch::optim::Adam optimizer(net->parameters());
  return write_checkpoint(dir, net, optimizer);
}

// A GPU run writes its checkpoints so: copies, the model's own tensors untouched.
TEST(Checkpoint, ModuleWrittenOnCpuReadsBackAsTheModuleAndStaysInPlace) {
  const auto dir = test::fresh_temp_dir("checkpoint_module_on_cpu");
  torch::manual_seed(2);
  Net net(8);
  net->counter.fill_(3);
  std::vector<const void*> addresses;
  for (const auto& p : net->parameters()) addresses.push_back(p.data_ptr());
  CheckpointWriter writer("toy");
  writer.add_settings(util::KeyValues());
  writer.add_module_on_cpu("net", *net);
  const std::string path = (dir / "on_cpu.pt").string();
  writer.save(path);
  for (std::size_t i = 0; i < addresses.size(); ++i) EXPECT_EQ(net->parameters()[i].data_ptr(), addresses[i]);

  torch::manual_seed(98);
  Net copy(8);
  CheckpointReader(path, "toy").load_module("net", *copy);
  for (const auto& p : net->named_parameters()) {
    EXPECT_TRUE(torch::equal(p.value(), copy->named_parameters()[p.key()])) << p.key();
  }
  EXPECT_TRUE(torch::equal(copy->named_buffers()["counter"], torch::full({1}, 3.0)));
}

TEST(Checkpoint, RoundTripRestoresEverything) {
  const auto dir = test::fresh_temp_dir("checkpoint_roundtrip");
  torch::manual_seed(1);
  Net net(8);
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(1e-2));
  net->fc1(torch::randn({3, 4})).sum().backward();
  optimizer.step();
  const auto path = write_checkpoint(dir, net, optimizer);
  const auto expected_draw = torch::rand({4});

  CheckpointReader reader(path, "toy");
  EXPECT_EQ(reader.kind(), "toy");
  EXPECT_EQ(reader.settings().get_int("hidden"), 8);
  EXPECT_DOUBLE_EQ(reader.settings().get_double("lr"), 0.001);
  EXPECT_EQ(reader.text("vocab"), "SOS\nEOS\nhola\n");
  torch::manual_seed(99);
  Net copy(8);
  torch::optim::Adam copy_optimizer(copy->parameters(), torch::optim::AdamOptions(1e-2));
  reader.load_module("net", *copy);
  reader.load_optimizer("adam", copy_optimizer);
  for (const auto& p : net->named_parameters()) {
    EXPECT_TRUE(torch::equal(p.value(), copy->named_parameters()[p.key()])) << p.key();
  }
  // The optimizer continues identically: one more step from both gives the same weights.
  optimizer.zero_grad();
  for (auto* pair : {&net, &copy}) (*pair)->fc1(torch::ones({2, 4})).sum().backward();
  optimizer.step();
  copy_optimizer.step();
  EXPECT_TRUE(torch::equal(net->fc1->weight, copy->fc1->weight));
  restore_cpu_generator_state(reader.tensor("rng"));
  EXPECT_TRUE(torch::equal(torch::rand({4}), expected_draw));
}

void expect_error(const std::string& path, const std::string& expected_part, const std::string& kind = "toy") {
  try {
    CheckpointReader reader(path, kind);
    Net net(8);
    reader.load_module("net", *net);
    FAIL() << "no error for " << path;
  } catch (const CheckpointError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(expected_part), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Checkpoint, BadFilesGiveOneLineErrors) {
  const auto dir = test::fresh_temp_dir("checkpoint_bad");
  const auto good = fresh_toy_checkpoint(dir);
  const std::string bytes = util::read_file(good);

  expect_error((dir / "absent.pt").string(), "no such checkpoint file");
  const auto truncated = (dir / "truncated.pt").string();
  test::write_bytes(truncated, bytes.substr(0, bytes.size() / 2));
  expect_error(truncated, "truncated or corrupt");
  const auto empty = (dir / "empty.pt").string();
  test::write_bytes(empty, "");
  expect_error(empty, "truncated or corrupt");
  const auto text = (dir / "text.pt").string();
  test::write_bytes(text, "this is not a checkpoint\n");
  expect_error(text, "truncated or corrupt");
  expect_error(good, "a toy checkpoint, expected a vit one", "vit");

  // A model of another size: the shapes are named.
  try {
    CheckpointReader reader(good);
    Net other(6);
    reader.load_module("net", *other);
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("'net.fc1.weight' has shape [8, 4] in the checkpoint but [6, 4]"),
              std::string::npos)
        << e.what();
  }
}

TEST(Checkpoint, ExtraOrMissingEntriesAreReported) {
  const auto dir = test::fresh_temp_dir("checkpoint_mismatch");
  Net net(8);
  CheckpointWriter writer("toy");
  writer.add_settings({});
  writer.add_module("net", *net->fc1);  // only the Linear: norm and counter missing
  const auto path = (dir / "partial.pt").string();
  writer.save(path);
  expect_error(path, "missing");
  CheckpointReader reader(path);
  torch::nn::Linear smaller(4, 8);
  EXPECT_NO_THROW(reader.load_module("net", *smaller));
  torch::nn::Linear no_bias(torch::nn::LinearOptions(4, 8).bias(false));
  try {
    reader.load_module("net", *no_bias);
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("'net.bias' is in the checkpoint but not in the model"), std::string::npos)
        << e.what();
  }
}

TEST(Checkpoint, AFailedWriteLeavesThePreviousCheckpoint) {
  const auto dir = test::fresh_temp_dir("checkpoint_atomic");
  const auto path = fresh_toy_checkpoint(dir);
  const std::string before = util::read_file(path);
  // A "crash" in the middle of writing the replacement: the temporary file is cut short
  // and the write aborts before the rename.
  EXPECT_THROW(util::write_file_atomically(path,
                                           [&](const std::string& tmp) {
                                             test::write_bytes(tmp, before.substr(0, 100));
                                             throw std::runtime_error("killed");
                                           }),
               std::runtime_error);
  EXPECT_EQ(util::read_file(path), before);
  EXPECT_NO_THROW(CheckpointReader(path, "toy"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// Flipped bytes anywhere -- in the archive or in the checksum trailer -- are refused with one
// line naming the file (LibTorch's own reader does not check the zip's CRCs).
TEST(Checkpoint, FlippedBytesAreRefusedByTheChecksum) {
  const auto dir = test::fresh_temp_dir("checkpoint_flipped");
  const auto good = fresh_toy_checkpoint(dir);
  const std::string bytes = util::read_file(good);
  for (const std::size_t at :
       {std::size_t{64}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 30, bytes.size() - 18, bytes.size() - 10}) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const auto path = (dir / ("flipped_" + std::to_string(at) + ".pt")).string();
    test::write_bytes(path, flipped);
    expect_error(path, "corrupt");
  }
  const auto cut = (dir / "no_trailer.pt").string();
  test::write_bytes(cut, bytes.substr(0, bytes.size() - 20));
  expect_error(cut, "checksum trailer is missing");
}

// A checkpoint written before checksums (format v1, no trailer) still loads.
TEST(Checkpoint, FilesWithoutAChecksumStillLoad) {
  const auto dir = test::fresh_temp_dir("checkpoint_v1");
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string("dlstudio-cpp checkpoint v1")));
  archive.write("kind", c10::IValue(std::string("toy")));
  archive.write("settings", c10::IValue(std::string("hidden=8\n")));
  archive.write("text.vocab", c10::IValue(std::string("SOS\n")));
  const auto path = (dir / "old.pt").string();
  archive.save_to(path);
  CheckpointReader reader(path, "toy");
  EXPECT_EQ(reader.settings().get_int("hidden"), 8);
  EXPECT_EQ(reader.text("vocab"), "SOS\n");
  EXPECT_TRUE(reader.has_text("vocab"));
  EXPECT_FALSE(reader.has_text("run_id"));
}

// A full disk and a read-only file system: one line naming the checkpoint with the errno
// text, the earlier checkpoint intact, no temporary file left.
TEST(Checkpoint, WriteFaultsNameTheFileAndLeaveNoTemporary) {
  Net small(8);
  torch::optim::Adam small_optimizer(small->parameters());
  test::TmpfsMount disk("checkpoint_disk_full", 64 * 1024);
  if (!disk.available()) GTEST_SKIP() << disk.why_not();
  const auto first = write_checkpoint(disk.dir(), small, small_optimizer);
  const std::string first_bytes = util::read_file(first);
  Net big(4000);  // about 4000 x 4 x 3 floats with Adam's state: more than is left
  torch::optim::Adam big_optimizer(big->parameters());
  big->fc1(torch::randn({2, 4})).sum().backward();
  big_optimizer.step();
  CheckpointWriter writer("toy");
  writer.add_settings({});
  writer.add_module("net", *big);
  writer.add_optimizer("adam", big_optimizer);
  const auto second = (disk.dir() / "second.pt").string();
  try {
    writer.save(second);
    FAIL() << "a checkpoint larger than the disk was written";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message, second + ": cannot write (" + std::strerror(ENOSPC) + ")");
  }
  EXPECT_EQ(util::read_file(first), first_bytes);
  EXPECT_EQ(std::distance(fs::directory_iterator(disk.dir()), fs::directory_iterator()), 1) << "no temporary left";

  ASSERT_TRUE(disk.make_read_only());
  try {
    CheckpointWriter again("toy");
    again.add_settings({});
    again.save((disk.dir() / "third.pt").string());
    FAIL() << "written on a read-only file system";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("third.pt: cannot create (" + std::string(std::strerror(EROFS)) + ")"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(CheckpointReader(first, "toy"));
}

}  // namespace
}  // namespace dls::checkpoint
