// The state dict pickle reader on hand-written pickles: what torch.save writes for one
// tensor, and hostile variations of it that must be refused with one line, never crash.
#include "dls/dlstudio/state_dict_pickle.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "support/error_of.h"
#include "support/state_dict_pickles.h"

namespace dls::dlstudio {
namespace {

using namespace std::string_literals;  // pickles hold NUL bytes

using test::pickle_global;
using test::pickle_int64;
using test::pickle_int8;
using test::pickle_text;

// torch.save(OrderedDict(w=<tensor>)) with the tensor's parts given as pickle fragments.
std::string state_dict(const std::string& persistent_id, const std::string& offset, const std::string& sizes,
                       const std::string& strides) {
  return test::pickle_state_dict({test::pickle_tensor_entry("w", persistent_id, offset, sizes, strides)});
}
std::string storage_id(int numel) { return test::pickle_storage_id(numel); }
const std::string kSizes2x3 = pickle_int8(2) + pickle_int8(3) + "\x86";
const std::string kStrides3x1 = pickle_int8(3) + pickle_int8(1) + "\x86";

std::string refusal(const std::string& pickle) {
  return test::error_of<std::runtime_error>([&] { parse_state_dict_pickle(pickle); }, "accepted");
}

TEST(StateDictPickle, ReadsWhereATensorLies) {
  const auto entries = parse_state_dict_pickle(state_dict(storage_id(6), pickle_int8(0), kSizes2x3, kStrides3x1));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, "w");
  const auto& record = entries[0].second;
  EXPECT_EQ(record.storage_key, "0");
  EXPECT_EQ(record.storage_type, "torch.FloatStorage");
  EXPECT_EQ(record.storage_numel, 6);
  EXPECT_EQ(record.offset, 0);
  EXPECT_EQ(record.sizes, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(record.strides, (std::vector<std::int64_t>{3, 1}));
  EXPECT_EQ(storage_element_bytes("torch.FloatStorage"), 4u);
  EXPECT_EQ(storage_element_bytes("torch.FooStorage"), 0u);
}

TEST(StateDictPickle, EveryTruncationIsRefused) {
  const auto whole = state_dict(storage_id(6), pickle_int8(0), kSizes2x3, kStrides3x1);
  for (std::size_t length = 0; length < whole.size(); ++length) {
    EXPECT_NE(refusal(whole.substr(0, length)), "accepted") << length;
  }
}

TEST(StateDictPickle, RefusesArgumentsOfTheWrongKind) {
  // These dereferenced a missing tuple before the checks.
  EXPECT_NE(refusal(state_dict(storage_id(6), pickle_int8(0), pickle_int8(2), kStrides3x1))
                .find("size is an int, not a tuple"),
            std::string::npos);
  EXPECT_NE(refusal(state_dict(pickle_int8(5), pickle_int8(0), kSizes2x3, kStrides3x1)).find("not a tensor storage"),
            std::string::npos);
  EXPECT_NE(refusal(state_dict(storage_id(6), pickle_text("0"), kSizes2x3, kStrides3x1))
                .find("without a storage and an offset"),
            std::string::npos);
}

TEST(StateDictPickle, RefusesViewsOutsideTheirStorage) {
  const auto sizes3x3 = pickle_int8(3) + pickle_int8(3) + "\x86";
  EXPECT_NE(
      refusal(state_dict(storage_id(6), pickle_int8(0), sizes3x3, kStrides3x1)).find("element 8 beyond its 6 elements"),
      std::string::npos);
  EXPECT_NE(refusal(state_dict(storage_id(6), pickle_int8(7), kSizes2x3, kStrides3x1)).find("offset 7 outside"),
            std::string::npos);
  EXPECT_NE(refusal(state_dict(storage_id(6), pickle_int8(0), kSizes2x3, pickle_int8(3) + pickle_int64(-1) + "\x86"))
                .find("negative"),
            std::string::npos);
  const auto huge = pickle_int64(std::int64_t{1} << 62) + pickle_int8(4) + "\x86";
  EXPECT_NE(refusal(state_dict(storage_id(6), pickle_int8(0), huge, pickle_int8(1) + pickle_int8(1) + "\x86"))
                .find("beyond 64 bits"),
            std::string::npos);
  // A stride-0 view may repeat its storage, but not without bound.
  EXPECT_NE(refusal(state_dict(storage_id(1), pickle_int8(0), pickle_int8(100) + "\x85", pickle_int8(0) + "\x85"))
                .find("more than 8 times"),
            std::string::npos);
  EXPECT_EQ(refusal(state_dict(storage_id(1), pickle_int8(0), pickle_int8(8) + "\x85", pickle_int8(0) + "\x85")),
            "accepted");
}

TEST(StateDictPickle, RefusesContainersThatContainThemselvesOrNestTooDeep) {
  // l = []; l.append(l): the list is in the memo, fetched, and appended to itself.
  EXPECT_NE(refusal("\x80\x02]q\x00h\x00"
                    "a."s)
                .find("already referred to"),
            std::string::npos);
  // 100,000 nested lists would overflow the stack when freed; refused at 33 levels.
  const std::string deep = "\x80\x02" + std::string(100000, ']') + std::string(99999, 'a') + ".";
  EXPECT_NE(refusal(deep).find("nested deeper than 32"), std::string::npos);
  // The same built top-down through the memo: each list is frozen once fetched.
  std::string top_down = "\x80\x02]q\x00";
  for (int i = 1; i < 100; ++i)
    top_down += "h" + std::string(1, static_cast<char>(i - 1)) + "]q" + std::string(1, static_cast<char>(i)) + "a";
  EXPECT_NE(refusal(top_down + "."), "accepted");
}

TEST(StateDictPickle, RefusesMoreOpcodesThanAStateDictNeeds) {
  std::string protocols;  // PROTO 2, over and over: no memory, only time
  for (int i = 0; i <= 4000000; ++i) protocols += "\x80\x02";
  EXPECT_NE(refusal(protocols + "N.").find("more than 4000000 opcodes"), std::string::npos);
}

TEST(StateDictPickle, RefusesEveryOtherGlobal) {
  const auto pickle = "\x80\x02" + pickle_global("os", "system") + "(" + pickle_text("ls") + "tR.";
  EXPECT_NE(refusal(pickle).find("refusing to call os.system"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02" + test::pickle_ordered_dict() + "N."),
            "accepted");  // a stack left over is fine, None is no dict
}

}  // namespace
}  // namespace dls::dlstudio
