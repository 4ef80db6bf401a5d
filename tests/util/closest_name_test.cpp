// util/closest_name.h: the edit distance and the name a misspelt one meant (the programs'
// "did you mean", tested through their command lines in apps/command_line_test.cpp).
#include "dls/util/closest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dls::closest_name_test {
namespace {

TEST(ClosestName, EditDistance) {
  EXPECT_EQ(util::edit_distance("epochs", "epochs"), 0u);
  EXPECT_EQ(util::edit_distance("epoch", "epochs"), 1u);
  EXPECT_EQ(util::edit_distance("ephocs", "epochs"), 2u);
  EXPECT_EQ(util::edit_distance("", "abc"), 3u);
}

TEST(ClosestName, WithinAThirdOfTheLengthOrAPrefix) {
  const std::vector<std::string> names = {"epochs", "heads", "embedding-size"};
  EXPECT_EQ(util::closest_name("ephocs", names), "epochs");
  EXPECT_EQ(util::closest_name("embedding", names), "embedding-size");
  EXPECT_EQ(util::closest_name("tokenizer", names), "");
  EXPECT_EQ(util::closest_name("em", names), "");  // too short to be a prefix of anything meant
}

}  // namespace
}  // namespace dls::closest_name_test
