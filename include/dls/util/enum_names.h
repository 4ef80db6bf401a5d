// An enum's names, listed once beside it: the name of a value, the value of a name (an unknown
// one refused with the list: "unknown layout 'x' (expected dlstudio, positionwise or
// vaswani)"), and the names a flag accepts (Setting::one_of). Aliases are read, never written;
// with `any_case`, "preln" reads as "PreLN".
#pragma once

#include <cctype>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dls::util {

// "a", "a or b", "a, b or c".
inline std::string or_list(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

template <typename Enum>
class EnumNames {
 public:
  using Entry = std::pair<Enum, const char*>;

  // `what` names the choice in errors ("layout"); `names` in the order flags list them.
  EnumNames(std::string what, std::initializer_list<Entry> names, std::initializer_list<Entry> aliases = {},
            bool any_case = false)
      : what_(std::move(what)), any_case_(any_case) {
    for (const auto& [value, name] : names) {
      entries_.emplace_back(value, name);
      names_.emplace_back(name);
    }
    for (const auto& [value, name] : aliases) entries_.emplace_back(value, name);
  }

  // The value's name; "?" for a value not listed.
  const std::string& name(Enum value) const {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (entries_[i].first == value) return names_[i];
    }
    static const std::string unknown = "?";
    return unknown;
  }

  // Throws std::invalid_argument listing the names.
  Enum parse(const std::string& text) const {
    for (const auto& [value, name] : entries_) {
      if (same(name, text)) return value;
    }
    throw std::invalid_argument("unknown " + what_ + " '" + text + "' (expected " + or_list(names_) + ")");
  }

  const std::vector<std::string>& names() const { return names_; }

 private:
  bool same(const std::string& name, const std::string& text) const {
    if (!any_case_) return name == text;
    if (name.size() != text.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(name[i])) != std::tolower(static_cast<unsigned char>(text[i])))
        return false;
    }
    return true;
  }

  std::string what_;
  std::vector<std::pair<Enum, std::string>> entries_;  // the names, then the aliases
  std::vector<std::string> names_;
  bool any_case_;
};

}  // namespace dls::util
