// util/enum_names.h: an enum's names both ways from one list, unknown names refused with the
// list, aliases read but never written, names in any case where asked.
#include "dls/util/enum_names.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "support/error_of.h"

namespace dls::util {
namespace enum_names_test {
namespace {

enum class Colour { kRed, kGreen, kBlue, kUnnamed };

const EnumNames<Colour> kColours("colour", {{Colour::kRed, "red"}, {Colour::kGreen, "green"}, {Colour::kBlue, "Blue"}},
                                 {{Colour::kRed, "rouge"}});
const EnumNames<Colour> kAnyCase("colour", {{Colour::kRed, "Red"}}, {}, true);

TEST(EnumNames, NamesAndValuesBothWays) {
  for (const auto colour : {Colour::kRed, Colour::kGreen, Colour::kBlue}) {
    EXPECT_EQ(kColours.parse(kColours.name(colour)), colour);
  }
  EXPECT_EQ(kColours.name(Colour::kBlue), "Blue");
  EXPECT_EQ(kColours.name(Colour::kUnnamed), "?");
  EXPECT_EQ(kColours.names(), (std::vector<std::string>{"red", "green", "Blue"}));
}

TEST(EnumNames, AnUnknownNameIsRefusedWithTheList) {
  EXPECT_EQ(test::error_of<std::invalid_argument>([] { kColours.parse("blue"); }),
            "unknown colour 'blue' (expected red, green or Blue)");
  EXPECT_EQ(test::error_of<std::invalid_argument>([] { kAnyCase.parse("green"); }),
            "unknown colour 'green' (expected Red)");
  EXPECT_EQ(or_list({"a", "b"}), "a or b");
}

TEST(EnumNames, AliasesAreReadNotWrittenAndAnyCaseWhereAsked) {
  EXPECT_EQ(kColours.parse("rouge"), Colour::kRed);
  EXPECT_EQ(kColours.name(Colour::kRed), "red");
  EXPECT_EQ(kAnyCase.parse("rED"), Colour::kRed);
  EXPECT_EQ(kAnyCase.name(Colour::kRed), "Red");
}

}  // namespace
}  // namespace enum_names_test
}  // namespace dls::util
