// Vocabularies as checkpoint texts, one word per line (private to src/checkpoint).
#pragma once

#include <string>
#include <vector>

namespace dls::checkpoint {

inline std::string lines_of(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += word + "\n";
  return text;
}

inline std::vector<std::string> words_of_lines(const std::string& text) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    words.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return words;
}

}  // namespace dls::checkpoint
