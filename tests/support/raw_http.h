// A TCP client on 127.0.0.1 that writes whatever bytes a test gives it -- the requests no
// HTTP library would send (pipelined, half-closed, trickled, oversized, mis-framed) -- and
// reads answers with a deadline. Header-only; for the server tests.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <string>

namespace dls::test {

struct RawAnswer {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  // A header's value ("" when absent); `name` lower-case.
  std::string header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? std::string() : found->second;
  }
};

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  // Sends all of `bytes`, waiting at most `limit` for room; false when the peer closed or
  // the time ran out.
  bool send(const std::string& bytes, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      if (!wait_for(POLLOUT, end)) return false;
      const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  // Whether bytes (or the peer's close) are waiting to be read.
  bool readable(std::chrono::milliseconds within = std::chrono::milliseconds(0)) {
    return wait_for(POLLIN, std::chrono::steady_clock::now() + within);
  }

  // One answer (status line, headers, a Content-Length body unless it answers a HEAD), or
  // nullopt when the connection closed or `limit` passed first.
  std::optional<RawAnswer> read_answer(std::chrono::milliseconds limit = std::chrono::seconds(5),
                                       bool to_head = false) {
    const auto end = std::chrono::steady_clock::now() + limit;
    std::size_t head_end;
    while ((head_end = pending_.find("\r\n\r\n")) == std::string::npos) {
      if (!read_more(end)) return std::nullopt;
    }
    RawAnswer answer;
    const std::string head = pending_.substr(0, head_end);
    if (head.rfind("HTTP/1.", 0) != 0 || head.size() < 12) return std::nullopt;
    answer.status = std::stoi(head.substr(9, 3));
    std::size_t at = head.find("\r\n");
    while (at != std::string::npos && at < head.size()) {
      const auto next = head.find("\r\n", at + 2);
      const auto line = head.substr(at + 2, (next == std::string::npos ? head.size() : next) - at - 2);
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        answer.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      at = next;
    }
    pending_.erase(0, head_end + 4);
    const auto length_header = answer.headers.find("content-length");
    const std::size_t length = to_head || length_header == answer.headers.end() ? 0 : std::stoul(length_header->second);
    while (pending_.size() < length) {
      if (!read_more(end)) return std::nullopt;
    }
    answer.body = pending_.substr(0, length);
    pending_.erase(0, length);
    return answer;
  }

  // Whether the peer closed the connection within `limit` (bytes before its close are dropped).
  bool closed_within(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (true) {
      if (!wait_for(POLLIN, end)) return false;
      char buffer[4096];
      const auto n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) return true;
    }
  }

 private:
  bool wait_for(short events, std::chrono::steady_clock::time_point end) {
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      pollfd p{fd_, events, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
      if (ready > 0) return true;
      if (ready == 0 || errno != EINTR) return false;
    }
  }

  bool read_more(std::chrono::steady_clock::time_point end) {
    if (!wait_for(POLLIN, end)) return false;
    char buffer[65536];
    const auto n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    pending_.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;  // bytes read and not yet returned
};

}  // namespace dls::test
