// read_distributed_environment (distributed.h): the variables of env:// and torchrun.
#include "dls/train/parallel/distributed.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace dls::train {

namespace {

int parse_env_int(const char* name, const char* value, long low, long high) {
  char* end = nullptr;
  errno = 0;
  const long number = std::strtol(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || number < low || number > high) {
    throw std::runtime_error(std::string("env:// rendezvous: ") + name + "='" + value + "' is not a whole number in [" +
                             std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return static_cast<int>(number);
}

}  // namespace

std::optional<DistributedEnvironment> read_distributed_environment(const EnvLookup& lookup) {
  const auto get = [&lookup](const char* name) -> const char* {
    const char* value = lookup ? lookup(name) : std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
  };
  const char* rank = get("RANK");
  const char* world = get("WORLD_SIZE");
  if (rank == nullptr && world == nullptr) return std::nullopt;
  const auto missing = [](const std::string& name, const std::string& why) {
    return std::runtime_error("env:// rendezvous: environment variable " + name + " expected, but not set (" + why +
                              ")");
  };
  if (rank == nullptr || world == nullptr) {
    throw missing(rank == nullptr ? "RANK" : "WORLD_SIZE",
                  std::string(rank == nullptr ? "WORLD_SIZE" : "RANK") + " is");
  }
  DistributedEnvironment env;
  env.world_size = parse_env_int("WORLD_SIZE", world, 1, 1 << 20);
  env.rank = parse_env_int("RANK", rank, 0, env.world_size - 1);
  const char* local_rank = get("LOCAL_RANK");
  env.local_rank = local_rank != nullptr ? parse_env_int("LOCAL_RANK", local_rank, 0, env.world_size - 1) : env.rank;
  const char* addr = get("MASTER_ADDR");
  const char* port = get("MASTER_PORT");
  if (env.world_size > 1) {
    if (addr == nullptr) throw missing("MASTER_ADDR", "world size " + std::to_string(env.world_size));
    if (port == nullptr) throw missing("MASTER_PORT", "world size " + std::to_string(env.world_size));
  }
  if (addr != nullptr) env.master_addr = addr;
  if (port != nullptr) env.master_port = parse_env_int("MASTER_PORT", port, 1, 65535);
  const char* agent_store = get("TORCHELASTIC_USE_AGENT_STORE");
  env.use_agent_store = agent_store != nullptr && std::string(agent_store) == "True";  // Python's str(True)
  if (env.use_agent_store) {
    const char* restarts = get("TORCHELASTIC_RESTART_COUNT");
    if (restarts == nullptr) throw missing("TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_USE_AGENT_STORE is True");
    env.restart_count = restarts;
  }
  if (const char* ifname = get("GLOO_SOCKET_IFNAME")) env.gloo_socket_ifname = ifname;
  env.under_torchrun = get("TORCHELASTIC_RESTART_COUNT") != nullptr;
  return env;
}

GlooListening gloo_listening(const DistributedEnvironment& env) {
  GlooListening listening;
  const std::string& names = env.gloo_socket_ifname;
  for (std::size_t begin = 0; !names.empty() && begin <= names.size();) {
    const auto end = std::min(names.find(',', begin), names.size());
    listening.interfaces.push_back(names.substr(begin, end - begin));
    begin = end + 1;
  }
  if (!listening.interfaces.empty()) return listening;
  const std::string& master = env.master_addr;
  if (master == "localhost") {
    listening.address = "127.0.0.1";
  } else if (master.rfind("127.", 0) == 0 || master == "::1") {
    listening.address = master;
  }
  return listening;
}

}  // namespace dls::train
