#include "data/pickle_graph.h"

#include <algorithm>
#include <unordered_map>

namespace dls::data::detail {

namespace {

using Kind = PickleValue::Kind;

bool is_container(const PickleValue& v) { return v.is(Kind::kList) || v.is(Kind::kTuple) || v.is(Kind::kDict); }

// Copies of a PickleValue share their payload, so its address identifies the container.
const void* identity(const PickleValue& v) {
  return v.is(Kind::kDict) ? static_cast<const void*>(&v.entries()) : &v.items();
}

// The k-th child of a container (a dict's keys and values alternate), nullptr past the end.
const PickleValue* child(const PickleValue& v, std::size_t k) {
  if (!v.is(Kind::kDict)) return k < v.items().size() ? &v.items()[k] : nullptr;
  if (k >= 2 * v.entries().size()) return nullptr;
  const auto& entry = v.entries()[k / 2];
  return k % 2 == 0 ? &entry.first : &entry.second;
}

}  // namespace

std::string check_container_graph(const std::vector<PickleValue>& containers) {
  // Iterative depth-first walk (no recursion on hostile input): a container reached again
  // while it is being walked contains itself; height = nesting depth from a container down.
  constexpr int kOpen = -1;
  std::unordered_map<const void*, int> height;
  struct Frame {
    const PickleValue* value;
    std::size_t next;
    int deepest_child;
  };
  std::vector<Frame> path;
  for (const PickleValue& root : containers) {
    if (height.count(identity(root))) continue;
    height[identity(root)] = kOpen;
    path.push_back({&root, 0, 0});
    while (!path.empty()) {
      Frame& frame = path.back();
      if (const PickleValue* c = child(*frame.value, frame.next++)) {
        if (!is_container(*c)) continue;
        const auto found = height.find(identity(*c));
        if (found == height.end()) {
          height[identity(*c)] = kOpen;
          path.push_back({c, 0, 0});  // invalidates `frame`, which is not used again
        } else if (found->second == kOpen) {
          return "refusing a container that contains itself";
        } else {
          frame.deepest_child = std::max(frame.deepest_child, found->second);
        }
        continue;
      }
      const int h = frame.deepest_child + 1;
      if (h > kMaxPickleDepth) return "containers nested deeper than " + std::to_string(kMaxPickleDepth);
      height[identity(*frame.value)] = h;
      path.pop_back();
      if (!path.empty()) path.back().deepest_child = std::max(path.back().deepest_child, h);
    }
  }
  return "";
}

}  // namespace dls::data::detail
