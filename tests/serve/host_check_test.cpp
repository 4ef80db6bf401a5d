#include "dls/serve/host_check.h"

#include <gtest/gtest.h>

namespace dls::serve {
namespace {

TEST(HostCheck, LocalNamesAndAddressesAreThisMachine) {
  for (const char* host : {"localhost", "LOCALHOST:8080", "localhost.", "app.localhost:1", "127.0.0.1", "127.0.0.1:80",
                           "192.168.1.20:8080", "[::1]", "[::1]:8080", " localhost "})
    EXPECT_TRUE(host_is_allowed(host, {})) << host;
}

TEST(HostCheck, OtherNamesNeedToBeAllowed) {
  for (const char* host :
       {"rebind.evil.example", "rebind.evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io",
        "evillocalhost", "", ":80", "::1", "[::1", "[::1]x", "localhost:http", "[evil.example]"})
    EXPECT_FALSE(host_is_allowed(host, {})) << host;
  EXPECT_TRUE(host_is_allowed("Translate.Example.org:8080", {"translate.example.org"}));
  EXPECT_FALSE(host_is_allowed("other.example.org", {"translate.example.org"}));
  EXPECT_TRUE(host_is_allowed("anything.example", {"*"}));
}

}  // namespace
}  // namespace dls::serve
