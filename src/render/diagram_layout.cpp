// Lays out the architecture diagram (see diagram.hpp). The graph is a topologically ordered node
// list whose repeated layers carry a block index; a transformer of 80 layers is drawn as its first
// layer, expanded, marked "× 80". Layers that differ (sliding-window and global attention, Mamba and
// attention mixers, dense and MoE feed-forwards) fall into separate groups with their own counts.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "render/diagram.hpp"
#include "render/render.hpp"

namespace neurarch::render {
namespace {

using graph::Graph;
using graph::Node;
using graph::NodeType;

constexpr double kItemGap = 24;    // vertical room for a chain arrow between items
constexpr double kColumnGap = 96;  // horizontal room for cross-column edges
constexpr double kGroupPad = 10;
constexpr double kMargin = 16;

std::string compact(std::int64_t n) {
  const double v = static_cast<double>(n);
  if (n >= 1'000'000'000) return fmt::format("{:.2f}B", v / 1e9);
  if (n >= 1'000'000) return fmt::format("{:.1f}M", v / 1e6);
  if (n >= 10'000) return fmt::format("{:.1f}K", v / 1e3);
  return thousands(n);
}

std::string mib(std::int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

// The module's own name (the last path component that is not a layer number): "self_attn", "mlp".
std::string module_leaf(const std::string& path) {
  std::size_t end = path.size();
  while (end > 0) {
    const std::size_t dot = path.rfind('.', end - 1);
    const std::size_t begin = dot == std::string::npos ? 0 : dot + 1;
    const std::string part = path.substr(begin, end - begin);
    if (!part.empty() && !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return part;
    if (dot == std::string::npos) break;
    end = dot;
  }
  return "";
}

std::string attributes(const Node& n) {
  std::vector<std::string> parts;
  if (n.attention) {
    const auto& a = *n.attention;
    parts.push_back(fmt::format("heads {}", a.heads));
    if (a.kv_heads && a.kv_heads != a.heads) parts.push_back(fmt::format("kv {}", a.kv_heads));
    parts.push_back(fmt::format("head_dim {}", a.head_dim));
    if (a.kv_input >= 0) parts.emplace_back("cross");
    if (a.causal) parts.emplace_back("causal");
    if (a.window > 0) parts.push_back(fmt::format("window {}", a.window));
    if (a.rotary) parts.emplace_back("RoPE");
  }
  if (n.latent)
    parts.push_back(fmt::format("kv rank {} · q rank {}", n.latent->kv_lora_rank, n.latent->q_lora_rank));
  if (n.moe) {
    const auto& m = *n.moe;
    parts.push_back(fmt::format("experts {} · top-{}", m.experts, m.top_k));
    parts.push_back(fmt::format("width {}", m.intermediate));
    if (m.shared_intermediate) parts.push_back(fmt::format("shared {}", m.shared_intermediate));
  } else if (n.feed_forward) {
    const auto& f = *n.feed_forward;
    parts.push_back(fmt::format("{} → {}", f.in, f.intermediate));
    if (!f.activation.empty()) parts.push_back(f.activation);
    if (f.gated) parts.emplace_back("gated");
  }
  if (n.ssm)
    parts.push_back(fmt::format("Mamba{} · inner {} · state {}", n.ssm->version == 2 ? "-2" : "", n.ssm->inner,
                                n.ssm->state));
  if (n.linear_attention)
    parts.push_back(fmt::format("Gated DeltaNet · {} k heads · {} v heads · conv {}", n.linear_attention->key_heads,
                                n.linear_attention->value_heads, n.linear_attention->conv_kernel));
  if (n.recurrent)
    parts.push_back(fmt::format("{} · {} wide · {} heads · state {}", graph::recurrent_cell_name(n.recurrent->cell),
                                n.recurrent->width, n.recurrent->heads, n.recurrent->state));
  if (n.deformable)
    parts.push_back(fmt::format("{} heads · {} levels × {} points · {} values", n.deformable->heads,
                                n.deformable->levels, n.deformable->points, n.deformable->value_len));
  if (n.spatial) {
    const auto& s = *n.spatial;
    parts.push_back(fmt::format("{}×{} /{}", s.kernel_h, s.kernel_w, s.stride));
    if (s.groups > 1) parts.push_back(fmt::format("groups {}", s.groups));
  }
  if (n.conv) parts.push_back(fmt::format("kernel {} /{}", n.conv->kernel, n.conv->stride));
  if (!n.activation.empty() && !n.feed_forward && !n.moe) parts.push_back(n.activation);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

std::vector<std::string> node_lines(const Graph& g, const Node& n) {
  std::vector<std::string> lines;
  const std::string leaf = module_leaf(n.path);
  lines.push_back(leaf.empty() ? std::string(graph::node_type_name(n.type))
                               : fmt::format("{} · {}", graph::node_type_name(n.type), leaf));
  if (auto a = attributes(n); !a.empty()) lines.push_back(std::move(a));
  const std::int64_t params = g.node_scalars(n.index);
  lines.push_back(params > 0 ? fmt::format("out {} · {} params", shape_text(n.out), compact(params))
                             : fmt::format("out {}", shape_text(n.out)));
  return lines;
}

double text_width(const std::vector<std::string>& lines) {
  std::size_t cols = 0;
  for (const auto& l : lines) cols = std::max(cols, text_columns(l));
  return static_cast<double>(cols) * DiagramMetrics::kCharWidth + 2 * DiagramMetrics::kPadX;
}

double text_height(std::size_t lines) {
  return static_cast<double>(lines) * DiagramMetrics::kLineHeight + 2 * DiagramMetrics::kPadY;
}

// "0–4, 6–10, 12" for the ordinals of a group's layers; long lists end in "…".
std::string ranges(const std::vector<int>& v) {
  std::string out;
  int shown = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (shown == 4) return out + ", …";
    out += (out.empty() ? "" : ", ") + (i == j ? std::to_string(v[i]) : fmt::format("{}–{}", v[i], v[j]));
    ++shown;
    i = j + 1;
  }
  return out;
}

// One item of a column: a box, or a group of boxes.
struct Item {
  bool group = false;
  int index = -1;
};

}  // namespace

std::size_t text_columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

Diagram layout_diagram(const Graph& g, const plan::Plan* plan) {
  Diagram d;
  const std::size_t n = g.nodes.size();

  // Columns: every Input node starts one; a node joins the column of its first input.
  std::vector<int> column(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (node.inputs.empty() || node.type == NodeType::Input) {
      column[i] = static_cast<int>(d.columns.size());
      const auto* in = g.input_at(node.index);
      d.columns.push_back({in ? fmt::format("{} [{}]", in->name, shape_text(in->shape))
                              : std::string(graph::node_type_name(node.type)),
                           {}});
    } else {
      column[i] = column[static_cast<std::size_t>(node.inputs[0])];
    }
  }

  // Plan overlay: activation bytes per node and sample (full fine-tune), and the peak's node.
  std::map<std::string, std::int64_t, std::less<>> act;
  std::string peak_node, peak_phase;
  if (plan) {
    for (const auto& a : plan->activations) act[a.node] = a.full_bytes;
    peak_phase = plan->full.peak_phase;
    peak_node = plan->full.peak_at;
  }
  auto act_of = [&](const Node& node) {
    const auto it = act.find(node.name);
    return it == act.end() ? std::int64_t{0} : it->second;
  };

  std::vector<int> box_of(n, -1);
  std::vector<std::vector<Item>> items(d.columns.size());
  auto add_box = [&](const Node& node, int group) {
    DiagramBox b;
    b.node = node.index;
    b.column = column[static_cast<std::size_t>(node.index)];
    b.lines = node_lines(g, node);
    b.group = group;
    b.rect.w = text_width(b.lines);
    b.rect.h = text_height(b.lines.size());
    d.boxes.push_back(std::move(b));
    return static_cast<int>(d.boxes.size()) - 1;
  };

  // Walk each column's nodes in order; consecutive layers (block >= 0) form a stack whose layers are
  // grouped by what they draw as.
  for (std::size_t c = 0; c < d.columns.size(); ++c) {
    std::vector<int> order;
    for (std::size_t i = 0; i < n; ++i)
      if (column[i] == static_cast<int>(c)) order.push_back(static_cast<int>(i));
    for (std::size_t k = 0; k < order.size();) {
      const Node& node = g.nodes[static_cast<std::size_t>(order[k])];
      if (node.block < 0) {
        box_of[static_cast<std::size_t>(node.index)] = add_box(node, -1);
        items[c].push_back({false, box_of[static_cast<std::size_t>(node.index)]});
        ++k;
        continue;
      }
      // The stack: layers until a node outside every layer; each layer is the run of one block index.
      std::vector<std::vector<int>> layers;
      while (k < order.size() && g.nodes[static_cast<std::size_t>(order[k])].block >= 0) {
        const int block = g.nodes[static_cast<std::size_t>(order[k])].block;
        std::vector<int> layer;
        while (k < order.size() && g.nodes[static_cast<std::size_t>(order[k])].block == block)
          layer.push_back(order[k++]);
        layers.push_back(std::move(layer));
      }
      // Group the layers by what they draw as, in order of first appearance.
      std::vector<std::string> signatures;
      std::vector<std::vector<int>> members;  // layer ordinals per group
      for (std::size_t l = 0; l < layers.size(); ++l) {
        std::string sig;
        for (int i : layers[l])
          for (const auto& line : node_lines(g, g.nodes[static_cast<std::size_t>(i)])) sig += line + '\n';
        const auto it = std::find(signatures.begin(), signatures.end(), sig);
        if (it == signatures.end()) {
          signatures.push_back(std::move(sig));
          members.push_back({static_cast<int>(l)});
        } else {
          members[static_cast<std::size_t>(it - signatures.begin())].push_back(static_cast<int>(l));
        }
      }
      for (std::size_t s = 0; s < members.size(); ++s) {
        const auto& first = layers[static_cast<std::size_t>(members[s][0])];
        DiagramGroup grp;
        grp.count = static_cast<int>(members[s].size());
        const int gi = static_cast<int>(d.groups.size());
        std::int64_t params = 0, bytes = 0;
        for (int i : first) {
          const Node& m = g.nodes[static_cast<std::size_t>(i)];
          params += g.node_scalars(m.index);
          bytes += act_of(m);
          grp.boxes.push_back(add_box(m, gi));
        }
        // Every instance's node draws as the representative at the same position in its layer.
        for (int l : members[s]) {
          const auto& layer = layers[static_cast<std::size_t>(l)];
          for (std::size_t p = 0; p < layer.size() && p < grp.boxes.size(); ++p)
            box_of[static_cast<std::size_t>(layer[p])] = grp.boxes[p];
        }
        grp.lines.push_back(grp.count == 1          ? fmt::format("× 1 · layer {}", members[s][0])
                            : members.size() == 1 ? fmt::format("× {} · layers 0–{}", grp.count, grp.count - 1)
                                                  : fmt::format("× {} · layers {}", grp.count, ranges(members[s])));
        std::string per_layer = fmt::format("{} params per layer", compact(params));
        if (plan) per_layer += fmt::format(" · activations {}/sample", mib(bytes));
        grp.lines.push_back(std::move(per_layer));
        grp.heat = static_cast<double>(bytes);
        d.groups.push_back(std::move(grp));
        items[c].push_back({true, gi});
      }
    }
  }

  // Heat: a box's activation bytes as a share of the largest box's; a group's per-layer total as a
  // share of the largest group's.
  if (plan) {
    double most = 0, most_group = 0;
    for (const auto& b : d.boxes) most = std::max(most, static_cast<double>(act_of(g.nodes[static_cast<std::size_t>(b.node)])));
    for (const auto& grp : d.groups) most_group = std::max(most_group, grp.heat);
    for (auto& b : d.boxes) {
      const double v = static_cast<double>(act_of(g.nodes[static_cast<std::size_t>(b.node)]));
      b.heat = most > 0 ? v / most : 0;
    }
    // The peak's node may be in any layer; it is marked on the box its layer is drawn as.
    for (std::size_t i = 0; i < n; ++i)
      if (!peak_node.empty() && g.nodes[i].name == peak_node && box_of[i] >= 0) {
        auto& b = d.boxes[static_cast<std::size_t>(box_of[i])];
        b.peak = true;
        b.rect.w += 2 * DiagramMetrics::kCharWidth;  // room for the marker beside the first line
      }
    for (auto& grp : d.groups) grp.heat = most_group > 0 ? grp.heat / most_group : 0;
    d.legend.push_back("Colour: activation bytes kept for backward per sample (full fine-tune), white none → red most");
    if (!peak_node.empty())
      d.legend.push_back(fmt::format("◆ the step's memory peak: {} through {} ({} allocated at batch {})",
                                     peak_phase == "backward" ? "backward" : "forward", peak_node,
                                     mib(plan->full.peak_allocated), plan->full.batch));
    else if (!peak_phase.empty())
      d.legend.push_back(fmt::format("The step's memory peak is in {} ({} allocated at batch {})", peak_phase,
                                     mib(plan->full.peak_allocated), plan->full.batch));
  }

  // Edges: the chain within a column, then whatever crosses columns (cross-attention keys and values,
  // a vision tower feeding a language model, two towers meeting in a similarity head).
  for (const auto& col : items)
    for (std::size_t k = 0; k + 1 < col.size(); ++k) {
      const int from = col[k].group ? d.groups[static_cast<std::size_t>(col[k].index)].boxes.back() : col[k].index;
      const int to = col[k + 1].group ? d.groups[static_cast<std::size_t>(col[k + 1].index)].boxes.front()
                                      : col[k + 1].index;
      d.edges.push_back({from, to, false, ""});
    }
  for (const auto& grp : d.groups)
    for (std::size_t k = 0; k + 1 < grp.boxes.size(); ++k) d.edges.push_back({grp.boxes[k], grp.boxes[k + 1], false, ""});
  std::set<std::pair<int, int>> crossing;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    // Keys and values first: a cross-attention that also lists the encoder among its inputs is labelled so.
    std::vector<std::pair<int, std::string>> sources;
    if (node.attention && node.attention->kv_input >= 0) sources.emplace_back(node.attention->kv_input, "k, v");
    for (int in : node.inputs) sources.emplace_back(in, "");
    for (const auto& [src, label] : sources) {
      if (src < 0 || column[static_cast<std::size_t>(src)] == column[i]) continue;
      const int from = box_of[static_cast<std::size_t>(src)], to = box_of[i];
      if (from < 0 || to < 0 || !crossing.insert({from, to}).second) continue;
      d.edges.push_back({from, to, true, label.empty() ? shape_text(g.nodes[static_cast<std::size_t>(src)].out) : label});
    }
  }

  // Geometry: measure every column, then place the columns left to right and centre each item.
  const double title_h = DiagramMetrics::kLineHeight + 2 * DiagramMetrics::kPadY;
  double x = kMargin, bottom = 0;
  for (std::size_t c = 0; c < d.columns.size(); ++c) {
    double width = text_width({d.columns[c].title});
    for (const auto& it : items[c]) {
      if (!it.group) {
        width = std::max(width, d.boxes[static_cast<std::size_t>(it.index)].rect.w);
        continue;
      }
      auto& grp = d.groups[static_cast<std::size_t>(it.index)];
      double inner = text_width(grp.lines);
      for (int b : grp.boxes) inner = std::max(inner, d.boxes[static_cast<std::size_t>(b)].rect.w + 2 * kGroupPad);
      grp.rect.w = inner;
      width = std::max(width, inner);
    }
    double y = kMargin + title_h + kItemGap;
    d.columns[c].rect = {x, kMargin, width, title_h};
    for (const auto& it : items[c]) {
      if (!it.group) {
        auto& r = d.boxes[static_cast<std::size_t>(it.index)].rect;
        r.x = x + (width - r.w) / 2;
        r.y = y;
        y += r.h + kItemGap;
        continue;
      }
      auto& grp = d.groups[static_cast<std::size_t>(it.index)];
      grp.rect.x = x + (width - grp.rect.w) / 2;
      grp.rect.y = y;
      double inner_y = y + text_height(grp.lines.size());
      for (int b : grp.boxes) {
        auto& r = d.boxes[static_cast<std::size_t>(b)].rect;
        r.x = grp.rect.x + (grp.rect.w - r.w) / 2;
        r.y = inner_y;
        inner_y += r.h + kItemGap;
      }
      grp.rect.h = inner_y - kItemGap + kGroupPad - y;
      y = grp.rect.y + grp.rect.h + kItemGap;
    }
    bottom = std::max(bottom, y);
    x += width + kColumnGap;
  }
  d.width = std::max(x - kColumnGap + kMargin, 2 * kMargin);
  double legend_w = 0;
  for (const auto& l : d.legend) legend_w = std::max(legend_w, static_cast<double>(text_columns(l)) * DiagramMetrics::kCharWidth);
  d.width = std::max(d.width, legend_w + 2 * kMargin);
  d.height = bottom + static_cast<double>(d.legend.size()) * DiagramMetrics::kLineHeight + kMargin;
  return d;
}

}  // namespace neurarch::render
