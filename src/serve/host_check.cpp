#include "dls/serve/host_check.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace dls::serve {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool is_address(const std::string& text, int family) {
  unsigned char address[16];
  return inet_pton(family, text.c_str(), address) == 1;
}

}  // namespace

bool host_is_allowed(std::string_view host, const std::vector<std::string>& allowed) {
  while (!host.empty() && (host.back() == ' ' || host.back() == '\t')) host.remove_suffix(1);
  while (!host.empty() && (host.front() == ' ' || host.front() == '\t')) host.remove_prefix(1);
  if (host.empty()) return false;
  if (std::find(allowed.begin(), allowed.end(), "*") != allowed.end()) return true;
  if (host.front() == '[') {  // [IPv6]:port
    const auto close = host.find(']');
    if (close == std::string_view::npos) return false;
    const auto rest = host.substr(close + 1);
    if (!rest.empty() && !(rest.front() == ':' && all_digits(rest.substr(1)))) return false;
    return is_address(std::string(host.substr(1, close - 1)), AF_INET6);
  }
  const auto colon = host.find(':');
  if (colon != std::string_view::npos) {
    if (!all_digits(host.substr(colon + 1))) return false;  // a bare IPv6 address or a bad port
    host = host.substr(0, colon);
  }
  std::string name = lower(host);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name.empty()) return false;
  if (is_address(name, AF_INET)) return true;
  const std::string_view suffix = ".localhost";
  if (name == "localhost" ||
      (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0))
    return true;
  return std::any_of(allowed.begin(), allowed.end(), [&name](const std::string& a) {
    std::string entry = lower(a);
    if (!entry.empty() && entry.back() == '.') entry.pop_back();
    return entry == name;
  });
}

}  // namespace dls::serve
