// Plain-text tables for the terminal and logs (evaluation summaries, sample translations).
// Column widths count display columns, so "canción" takes 7 like "cancion".
//
//   +-------+-------+
//   | epoch |  BLEU |
//   +-------+-------+
//   | 1     |  12.3 |
//   +-------+-------+
#pragma once

#include <string>
#include <vector>

namespace dls::util {

enum class Align { kLeft, kRight };

class Table {
 public:
  // `align` gives each column's alignment (headers included); missing entries are kLeft.
  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});

  // Throws std::invalid_argument unless the row has one cell per header.
  Table& add_row(std::vector<std::string> cells);
  // A horizontal rule between the rows added before and after it.
  Table& add_separator();

  std::size_t rows() const { return rows_.size(); }

  // The whole table, every line ending in '\n'. Line breaks and tabs inside cells are
  // shown as spaces.
  std::string to_string() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a separator
};

}  // namespace dls::util
