// torch.save files in and out: a fixture written by Python's torch.save, our own writer's
// files, and archives laid out as torch.save lays them out around hand-written pickles whose
// storages do not match their records.
#include "dls/dlstudio/state_dict_file.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include "dls/util/file_io.h"
#include "support/error_of.h"
#include "support/state_dict_pickles.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::dlstudio {
namespace {

using test::pickle_int8;

std::string interop_fixture(const std::string& name) { return testing::fixtures_dir() + "/dlstudio_interop/" + name; }

// data.pkl and data/<key> records in a zip archive, as torch.save writes them.
std::string write_archive(const std::string& name, const std::string& pickle,
                          const std::map<std::string, std::string>& storages) {
  const auto path = (test::fresh_temp_dir("state_dict_archive") / name).string();
  caffe2::serialize::PyTorchStreamWriter writer(path);
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  for (const auto& [key, bytes] : storages) writer.writeRecord("data/" + key, bytes.data(), bytes.size());
  writer.writeEndOfFile();
  return path;
}

std::string read_error(const std::string& path) {
  return test::error_of<std::runtime_error>([&] { read_state_dict_file(path); }, "(no error)");
}

// Two floats, 1 and 2, as a storage record's bytes.
std::string two_floats() {
  const float values[] = {1.0F, 2.0F};
  return std::string(reinterpret_cast<const char*>(values), sizeof(values));
}

const std::string kTwo = pickle_int8(2) + "\x85";  // (2,)
const std::string kOne = pickle_int8(1) + "\x85";  // (1,)

TEST(StateDictFile, ReadsTorchSaveOrderedDictInOrder) {
  const auto state = read_state_dict_file(interop_fixture("positionwise/encoder_FG_5"));
  ASSERT_FALSE(state.empty());
  EXPECT_EQ(state.front().first, "basic_encoder_arr.0.self_attention_layer.attention_heads_arr.0.WQ.weight");
  EXPECT_EQ(state.front().second.sizes().vec(), (std::vector<std::int64_t>{4, 4}));  // s = 8 / 2
  EXPECT_EQ(state.back().first, "basic_encoder_arr.1.norm2.bias");
}

TEST(StateDictFile, WriteThenReadGivesTheSameTensors) {
  const StateDict written{{"a.weight", torch::randn({3, 2})}, {"b", torch::arange(6).view({2, 3}).t()}};
  const auto path = test::fresh_temp_dir("state_dict") / "state.pt";
  write_state_dict_file(written, path.string());
  const auto read = read_state_dict_file(path.string());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].first, "b");
  EXPECT_TRUE(torch::equal(read[0].second, written[0].second));
  EXPECT_TRUE(torch::equal(read[1].second, written[1].second));
}

TEST(StateDictFile, RefusesAFileThatIsNoArchive) {
  const auto path = test::fresh_temp_dir("state_dict_bad") / "plain.txt";
  util::write_text_atomically(path.string(), "not a zip");
  EXPECT_THROW(read_state_dict_file(path.string()), std::runtime_error);
}

TEST(StateDictFile, ReadsAHandWrittenArchive) {
  const auto pickle =
      test::pickle_state_dict({test::pickle_tensor_entry("w", test::pickle_storage_id(2), pickle_int8(0), kTwo, kOne)});
  const auto state = read_state_dict_file(write_archive("one.pt", pickle, {{"0", two_floats()}}));
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].first, "w");
  EXPECT_TRUE(torch::equal(state[0].second, torch::tensor({1.0F, 2.0F})));
}

TEST(StateDictFile, RefusesAStorageRecordShorterThanThePickleSays) {
  const auto pickle =
      test::pickle_state_dict({test::pickle_tensor_entry("w", test::pickle_storage_id(4), pickle_int8(0), kTwo, kOne)});
  EXPECT_NE(read_error(write_archive("short.pt", pickle, {{"0", two_floats()}}))
                .find("storage 0 holds 8 bytes, not 4 elements of 4"),
            std::string::npos);
}

TEST(StateDictFile, RefusesAStorageGivenTwoTypes) {
  const auto pickle = test::pickle_state_dict(
      {test::pickle_tensor_entry("a", test::pickle_storage_id(2, "FloatStorage"), pickle_int8(0), kTwo, kOne),
       test::pickle_tensor_entry("b", test::pickle_storage_id(2, "IntStorage"), pickle_int8(0), kTwo, kOne)});
  EXPECT_NE(read_error(write_archive("two_types.pt", pickle, {{"0", two_floats()}}))
                .find("storage 0 is given two different types or sizes"),
            std::string::npos);
}

TEST(StateDictFile, NamesTheFileAndTheBytesOfABrokenPickle) {
  const auto pickle = test::pickle_state_dict(
      {test::pickle_tensor_entry("w", test::pickle_storage_id(2), pickle_int8(0), pickle_int8(2), kOne)});
  const auto path = write_archive("size_no_tuple.pt", pickle, {{"0", two_floats()}});
  const auto error = read_error(path);
  EXPECT_EQ(error.rfind(path + ": data.pkl byte ", 0), 0u) << error;
  EXPECT_NE(error.find("a tensor's size is an int, not a tuple"), std::string::npos) << error;
}

}  // namespace
}  // namespace dls::dlstudio
