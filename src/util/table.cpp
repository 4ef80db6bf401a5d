#include "dls/util/table.h"

#include <algorithm>
#include <stdexcept>

#include "dls/util/utf8.h"

namespace dls::util {

namespace {

std::string one_line(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return text;
}

}  // namespace

Table::Table(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  if (headers_.empty()) throw std::invalid_argument("Table: no columns");
  for (std::string& h : headers_) h = one_line(std::move(h));
  align_.resize(headers_.size(), Align::kLeft);
}

Table& Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size()) {
    throw std::invalid_argument("Table: row " + std::to_string(rows_.size() + 1) + " has " +
                                std::to_string(cells.size()) + " cells for " + std::to_string(headers_.size()) +
                                " columns");
  }
  for (std::string& c : cells) c = one_line(std::move(c));
  rows_.push_back(std::move(cells));
  return *this;
}

Table& Table::add_separator() {
  rows_.emplace_back();
  return *this;
}

std::string Table::to_string() const {
  std::vector<int> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) widths[c] = display_width(headers_[c]);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string rule = "+";
  for (int w : widths) rule += std::string(w + 2, '-') + "+";
  rule += "\n";
  const auto format_row = [&](const std::vector<std::string>& cells) {
    std::string line = "|";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string padding(widths[c] - display_width(cells[c]), ' ');
      line += " ";
      line += align_[c] == Align::kRight ? padding + cells[c] : cells[c] + padding;
      line += " |";
    }
    return line + "\n";
  };
  std::string out = rule + format_row(headers_) + rule;
  for (const auto& row : rows_) out += row.empty() ? rule : format_row(row);
  if (!rows_.empty() && !rows_.back().empty()) out += rule;  // no doubled rule at the end
  return out;
}

}  // namespace dls::util
