// A small open-addressing hash map that numbers keys 0, 1, 2, ... in insertion order.
// Private to src/eval (BLEU's token interning and n-gram counting).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dls::eval::detail {

// Linear probing over a power-of-two table with Fibonacci hashing of Hash's value. clear()
// is O(1): a slot is live only when its stamp equals the current one. Keys must be cheap
// to copy (integers, string views).
template <typename Key, typename Hash = std::hash<Key>>
class DenseIdMap {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  // Forgets every key; the next id handed out is 0 again.
  void clear() {
    size_ = 0;
    if (++stamp_ == 0) {  // stamps wrapped around: old slots would look live again
      for (auto& slot : slots_) slot.stamp = 0;
      stamp_ = 1;
    }
  }

  std::size_t size() const { return size_; }

  // The id of `key`; a new key gets the id size() (then size() grows by one).
  std::uint32_t insert(const Key& key) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    std::size_t i = slot_of(key);
    for (; slots_[i].stamp == stamp_; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].id;
    }
    if (size_ >= kAbsent) throw std::length_error("DenseIdMap: more than 2^32 - 1 keys");
    slots_[i] = Slot{key, static_cast<std::uint32_t>(size_), stamp_};
    return static_cast<std::uint32_t>(size_++);
  }

  // The id of `key`, or kAbsent.
  std::uint32_t find(const Key& key) const {
    if (size_ == 0) return kAbsent;
    for (std::size_t i = slot_of(key); slots_[i].stamp == stamp_; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].id;
    }
    return kAbsent;
  }

 private:
  struct Slot {
    Key key{};
    std::uint32_t id = 0;
    std::uint32_t stamp = 0;  // live when equal to stamp_
  };

  std::size_t slot_of(const Key& key) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(Hash{}(key)) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void rehash(std::size_t capacity) {  // capacity: a power of two
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(capacity));
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& slot : old) {
      if (slot.stamp != stamp_) continue;
      std::size_t i = slot_of(slot.key);
      while (slots_[i].stamp == stamp_) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::uint32_t stamp_ = 1;  // fresh slots have stamp 0: empty
};

}  // namespace dls::eval::detail
