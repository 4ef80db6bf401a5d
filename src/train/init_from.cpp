#include "dls/train/init_from.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <torch/torch.h>

#include "dls/layers/saved_tensors.h"
#include "dls/util/table.h"

namespace dls::train {

namespace {

std::string shape_text(const torch::Tensor& tensor) {
  std::string text = "[";
  for (std::int64_t d = 0; d < tensor.dim(); ++d) text += (d ? ", " : "") + std::to_string(tensor.size(d));
  return text + "]";
}

// 4210 -> "4,210".
std::string grouped(std::int64_t n) {
  auto digits = std::to_string(n);
  for (auto i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

// 14'200'000 -> "14.2 M".
std::string millions(std::int64_t n) {
  char text[32];
  std::snprintf(text, sizeof text, n >= 100000 ? "%.1f M" : "%.3f M", static_cast<double>(n) / 1e6);
  return text;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// The model's name for the checkpoint's `name`.
std::string renamed(const std::string& name, const InitPlan& plan) {
  for (const auto& [theirs, ours] : plan.renames) {
    if (starts_with(name, theirs)) return ours + name.substr(theirs.size());
  }
  return name;
}

// Copies the rows of `from` whose token `ours` also has into `into` (dim 0 by token);
// returns the rows copied.
std::int64_t copy_rows_by_token(torch::Tensor& into, const torch::Tensor& from, const InitPlan::TokenRows& rows) {
  std::unordered_map<std::string, std::int64_t> their_row;
  for (std::size_t i = 0; i < rows.theirs->size(); ++i)
    their_row.emplace((*rows.theirs)[i], static_cast<std::int64_t>(i));
  std::vector<std::int64_t> targets, sources;
  for (std::size_t i = 0; i < rows.ours->size(); ++i) {
    if (const auto found = their_row.find((*rows.ours)[i]); found != their_row.end()) {
      targets.push_back(static_cast<std::int64_t>(i));
      sources.push_back(found->second);
    }
  }
  if (targets.empty()) return 0;
  const auto options = torch::TensorOptions().dtype(torch::kLong);
  const auto picked = from.index_select(0, torch::tensor(sources, options)).to(into.device(), into.scalar_type());
  into.index_copy_(0, torch::tensor(targets, options).to(into.device()), picked);
  return static_cast<std::int64_t>(targets.size());
}

bool resampled(const InitPlan& plan, const std::string& name) {
  return std::find(plan.resampled_grids.begin(), plan.resampled_grids.end(), name) != plan.resampled_grids.end();
}

// The side of a square grid of `patches`; 0 when they make none.
std::int64_t grid_side(std::int64_t patches) {
  const auto side = static_cast<std::int64_t>(std::lround(std::sqrt(static_cast<double>(patches))));
  return side > 0 && side * side == patches ? side : 0;
}

// Resamples `from` [1, P, M] onto `into`'s grid [1, P', M], both square grids of patches in
// row-major order (as PatchEmbeddingGenerator cuts them), as timm's resample_abs_pos_embed
// does; returns the old grid's side, or 0 (nothing copied) when they are not two such grids.
std::int64_t resample_grid(torch::Tensor& into, const torch::Tensor& from) {
  if (into.dim() != 3 || from.dim() != 3 || into.size(0) != 1 || from.size(0) != 1 || into.size(2) != from.size(2))
    return 0;
  const auto side = grid_side(from.size(1)), new_side = grid_side(into.size(1));
  if (side == 0 || new_side == 0) return 0;
  const auto M = from.size(2);
  // [1, P, M] -> [1, M, side, side], resized, -> [1, P', M]; in float32, as timm does.
  const auto grid = from.to(torch::kFloat32).reshape({1, side, side, M}).permute({0, 3, 1, 2});
  namespace F = torch::nn::functional;
  const auto resized = F::interpolate(grid, F::InterpolateFuncOptions()
                                                .size(std::vector<std::int64_t>{new_side, new_side})
                                                .mode(torch::kBicubic)
                                                .align_corners(false)
                                                .antialias(true));
  into.copy_(resized.permute({0, 2, 3, 1}).reshape({1, new_side * new_side, M}));
  return side;
}

// Copies `from` (the checkpoint's, reading plan.their_channels) into `into` (the model's,
// reading plan.our_channels) as timm's adapt_input_conv: summed over the channels for one, the
// one channel repeated and divided by C for C. Returns the outcome line, or "" (nothing copied)
// when the tensors are not two such readers of the image (e.g. one reads a stem's channels).
std::string adapt_channels(torch::Tensor& into, const torch::Tensor& from, InitPlan::ChannelLayout layout,
                           const InitPlan& plan) {
  const auto theirs = plan.their_channels, ours = plan.our_channels;
  if (theirs <= 0 || ours <= 0 || theirs == ours || (theirs != 1 && ours != 1)) return "";
  const bool conv = layout == InitPlan::ChannelLayout::kConv;
  if (into.dim() != from.dim() || into.dim() != (conv ? 4 : 2) || into.size(0) != from.size(0)) return "";
  auto source = from.to(into.device(), into.scalar_type());
  if (conv) {  // [O, C, kh, kw]
    if (from.size(1) != theirs || into.size(1) != ours || into.sizes().slice(2) != from.sizes().slice(2)) return "";
  } else {                                      // [M, p*p*C] -> [M, p*p, C]
    const auto pixels = from.size(1) / theirs;  // p*p
    if (from.size(1) != pixels * theirs || into.size(1) != pixels * ours) return "";
    source = source.reshape({from.size(0), pixels, theirs});
  }
  const std::int64_t dim = conv ? 1 : 2;  // the channels'
  const auto adapted =
      ours == 1 ? source.sum(dim, /*keepdim=*/true) : source.repeat_interleave(ours, dim) / static_cast<double>(ours);
  into.copy_(adapted.reshape(into.sizes()));
  return "adapted: " + std::to_string(theirs) + (theirs == 1 ? " channel" : " channels") + " there, " +
         (ours == 1 ? std::string("summed into 1 here")
                    : "repeated to " + std::to_string(ours) + " here (each divided by " + std::to_string(ours) + ")");
}

// adapt_channels for `name` when the plan lists it among the tensors that read the image; "" else.
std::string channel_adaptation(const InitPlan& plan, const std::string& name, torch::Tensor& into,
                               const torch::Tensor& from) {
  for (const auto& reader : plan.input_channels) {
    if (reader.name == name) return adapt_channels(into, from, reader.layout, plan);
  }
  return "";
}

}  // namespace

InitReport init_parameters(torch::nn::Module& model, const checkpoint::NamedTensors& theirs, const InitPlan& plan,
                           const std::string& source) {
  InitReport report;
  report.source = source;
  std::map<std::string, torch::Tensor> by_name;  // the model's names
  for (const auto& [name, tensor] : theirs) {
    if (tensor.defined()) by_name.emplace(renamed(name, plan), tensor);  // undefined: a module's own entry
  }
  std::map<std::string, bool> used;
  for (const auto& entry : by_name) used[entry.first] = false;
  for (const auto& buffer : model.named_buffers()) used.erase(buffer.key());  // the model's own

  torch::NoGradGuard no_grad;
  std::set<const std::vector<std::string>*> warned_vocabularies;
  std::map<const void*, std::string> first_name;          // tied weights: one tensor under several names
  for (auto& [name, tensor] : saved_parameters(model)) {  // DLStudio's names, as the checkpoint's
    InitLine line{name, shape_text(tensor), ""};
    if (const auto tied = first_name.emplace(tensor.unsafeGetTensorImpl(), name); !tied.second) {
      if (by_name.count(name) > 0) used[name] = true;
      line.outcome = "the same tensor as " + tied.first->second;
      report.lines.push_back(std::move(line));
      continue;
    }
    report.total += tensor.numel();
    const auto found = by_name.find(name);
    const InitPlan::TokenRows* rows = nullptr;
    for (const auto& candidate : plan.token_rows) rows = candidate.name == name ? &candidate : rows;
    if (found == by_name.end()) {
      line.outcome = "fresh: not in the checkpoint";
    } else {
      used[name] = true;
      const auto& from = found->second;
      const bool row_shaped = rows != nullptr && tensor.dim() == from.dim() && tensor.dim() >= 1 &&
                              tensor.size(0) == static_cast<std::int64_t>(rows->ours->size()) &&
                              from.size(0) == static_cast<std::int64_t>(rows->theirs->size()) &&
                              tensor.sizes().slice(1) == from.sizes().slice(1);
      if (row_shaped && *rows->ours == *rows->theirs) {
        tensor.copy_(from);
        report.loaded += tensor.numel();
        line.outcome =
            "loaded (the same " + (rows->unit == "token" ? std::string("vocabulary") : rows->unit + " names") + ")";
      } else if (row_shaped) {
        const auto copied = copy_rows_by_token(tensor, from, *rows);
        report.loaded += copied * (tensor.numel() / std::max<std::int64_t>(tensor.size(0), 1));
        line.outcome = "by " + rows->unit + ": " + grouped(copied) + " of " + grouped(tensor.size(0)) + " rows";
        // Rows that hardly meet: the checkpoint speaks another language or direction, or cuts
        // its text otherwise (words into characters): said once per vocabulary.
        if (copied * 2 < tensor.size(0) && warned_vocabularies.insert(rows->ours).second) {
          const bool tokens = rows->unit == "token";
          report.warnings.push_back(name + ": " + grouped(copied) + " of its " + grouped(tensor.size(0)) + " " +
                                    (tokens ? "tokens" : rows->unit + "es") + " are the checkpoint's; " +
                                    (tokens ? "another language, direction or tokenizer than the checkpoint's?"
                                            : "other " + rows->unit + "es than the checkpoint's"));
        }
      } else if (tensor.sizes() == from.sizes()) {
        tensor.copy_(from);
        report.loaded += tensor.numel();
        line.outcome = "loaded";
      } else if (const auto adapted = channel_adaptation(plan, name, tensor, from); !adapted.empty()) {
        report.loaded += tensor.numel();
        line.outcome = adapted;
      } else if (const auto side = resampled(plan, name) ? resample_grid(tensor, from) : 0; side > 0) {
        report.loaded += tensor.numel();
        const auto new_side = std::to_string(grid_side(tensor.size(1)));
        line.outcome = "resampled: " + std::to_string(side) + " x " + std::to_string(side) + " patches there, " +
                       new_side + " x " + new_side + " here";
      } else {
        bool may_start_over = false;
        for (const auto& prefix : plan.fresh_when_resized) may_start_over = may_start_over || starts_with(name, prefix);
        if (!may_start_over) {
          throw std::runtime_error("--init-from " + source + ": " + name + " is " + shape_text(from) + " there and " +
                                   shape_text(tensor) + " here (another model shape: " + plan.shape_flags + ")");
        }
        line.outcome = "fresh: " + shape_text(from) + " there";
      }
    }
    report.lines.push_back(std::move(line));
  }
  for (const auto& [name, was_used] : used) {
    if (!was_used) report.unused.push_back(name);
  }
  if (report.loaded == 0) throw std::runtime_error("--init-from " + source + ": no tensor of it fits this model");
  return report;
}

std::string InitReport::summary() const {
  int by_token = 0, by_class = 0, fresh = 0;
  for (const auto& line : lines) {
    by_token += starts_with(line.outcome, "by token") ? 1 : 0;
    by_class += starts_with(line.outcome, "by class") ? 1 : 0;
    fresh += starts_with(line.outcome, "fresh") ? 1 : 0;
  }
  char share[32];
  std::snprintf(share, sizeof share, "%.1f %%", total > 0 ? 100.0 * static_cast<double>(loaded) / total : 0.0);
  std::string text = "--init-from " + source + (weights.empty() ? "" : " (" + weights + ")") + ": " + millions(loaded) +
                     " of " + millions(total) + " values (" + share + ") from it";
  text += "; " + std::to_string(by_token) + " tensors by token, ";
  if (by_class > 0) text += std::to_string(by_class) + " by class name, ";
  text += std::to_string(fresh) + " fresh";
  if (!unused.empty()) text += ", " + std::to_string(unused.size()) + " of its tensors unused";
  return text;
}

std::string InitReport::table(bool every_parameter) const {
  util::Table table({"parameter", "shape", "from the checkpoint"});
  int loaded_as_they_are = 0;
  for (const auto& line : lines) {
    if (!every_parameter && starts_with(line.outcome, "loaded")) {
      ++loaded_as_they_are;
    } else {
      table.add_row({line.name, line.shape, line.outcome});
    }
  }
  if (loaded_as_they_are > 0) table.add_row({std::to_string(loaded_as_they_are) + " others", "", "loaded"});
  if (!unused.empty()) {
    table.add_separator();
    std::string names;
    for (std::size_t i = 0; i < unused.size() && i < 2; ++i) names += (i ? ", " : "") + unused[i];
    if (unused.size() > 2) names += ", ...";
    table.add_row({std::to_string(unused.size()) + " unused", "", names});
  }
  return table.to_string();
}

}  // namespace dls::train
