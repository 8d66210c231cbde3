#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/plan_render.hpp"
#include "render/render.hpp"
#include "render/summary.hpp"

namespace neurarch::render {
namespace {

// Display width in code points: "×" is one column but two bytes.
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  std::size_t w = columns(s);
  std::string fill(width > w ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> rows;

  std::string render() const {
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = columns(header[c]);
    for (const auto& row : rows)
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], columns(row[c]));
    auto line = [&](const std::vector<std::string>& cells) {
      std::string out;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (c) out += "  ";
        out += pad(cells[c], width[c], right[c]);
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out + "\n";
    };
    std::string out = line(header);
    std::size_t total = 0;
    for (auto w : width) total += w;
    out += std::string(total + 2 * (width.size() - 1), '-') + "\n";
    for (const auto& row : rows) out += line(row);
    return out;
  }
};

}  // namespace

std::string text(const report::Report& r, const TextOptions& options) {
  const auto& g = r.graph;
  std::string out;
  out += fmt::format("{} ({}{})\n", r.model.id, r.model.source, r.model.revision.empty() ? "" : " @ " + r.model.revision);
  out += fmt::format("model_type {} · class {} · mirrors transformers {}\n", r.model.model_type, r.model.class_name,
                     r.model.reference);
  out += fmt::format("Input: {} {}\n", g.input_kind, shape_text(g.input_shape));
  // The main input need not be declared first (LLaVA's prompt follows its pixels): list the others.
  bool main_listed = false;
  for (const auto& in : g.inputs) {
    if (!main_listed && in.kind == g.input_kind && in.shape == g.input_shape) {
      main_listed = true;
      continue;
    }
    out += fmt::format("{}: {} {}\n", in.name, in.kind, shape_text(in.shape));
  }
  out += "\n";

  Table layers{{"#", "Layer", "Type", "Output shape", "Params"}, {true, false, false, false, true}, {}};
  for (const auto& n : g.nodes)
    layers.rows.push_back({std::to_string(n.index), n.name, std::string(graph::node_type_name(n.type)),
                           shape_text(n.out), thousands(g.node_scalars(n.index))});
  out += layers.render();
  out += "\n";

  for (const auto& line : summary_lines(r)) out += line + "\n";

  if (r.plan) out += plan_text(*r.plan, false);

  out += "\nWhat the verifier says:\n";
  auto findings = finding_lines(r);
  if (findings.empty()) out += "  nothing to report\n";
  for (const auto& f : findings) out += "  " + f + "\n";

  if (r.checkpoint) {
    const auto& c = *r.checkpoint;
    if (!c.exact()) {
      out += "\nCheckpoint differences:\n";
      for (const auto& t : c.missing)
        out += fmt::format("  missing in checkpoint  {}  [{}] {}\n", t.name, shape_text(t.shape), dtype_name(t.dtype));
      for (const auto& u : c.unexpected)
        out += fmt::format("  only in checkpoint     {}  [{}] {}{}\n", u.tensor.name, shape_text(u.tensor.shape),
                           dtype_name(u.tensor.dtype), u.explanation.empty() ? "" : " — " + u.explanation);
      for (const auto& m : c.mismatched)
        out += fmt::format("  {} differs  {}: ours [{}] {}, checkpoint [{}] {}\n", m.reason, m.name,
                           shape_text(m.ours.shape), dtype_name(m.ours.dtype), shape_text(m.checkpoint.shape),
                           dtype_name(m.checkpoint.dtype));
    }
  }

  if (options.list_tensors) {
    out += "\n";
    Table tensors{{"Tensor", "Shape", "DType", "Layer"}, {false, false, false, false}, {}};
    for (const auto& t : g.tensors)
      tensors.rows.push_back({(t.saved() ? t.name : t.name + " (tied to " + t.tied_to + ")") + (t.frozen ? " (frozen)" : ""),
                              shape_text(t.shape),
                              std::string(dtype_name(t.dtype)), g.nodes[static_cast<std::size_t>(t.node)].name});
    out += tensors.render();
  }
  return out;
}

}  // namespace neurarch::render
