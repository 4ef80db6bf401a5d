// Whether a request's Host header names this server: the defence against DNS rebinding, in
// which a web page whose own name re-binds to 127.0.0.1 reads the server from a user's
// browser (the browser sends the page's name as Host).
#pragma once

#include <string_view>
#include <vector>
#include <string>

namespace dls::serve {

// Accepted, with or without a port: IP literals ("127.0.0.1", "[::1]": the browser went to
// the address itself, which no re-bound name produces), "localhost" and names under
// ".localhost" (browsers resolve them to loopback without asking DNS), and the names in
// `allowed` (case-insensitive, without port; "*" accepts any Host). Empty or malformed: no.
bool host_is_allowed(std::string_view host, const std::vector<std::string>& allowed);

}  // namespace dls::serve
