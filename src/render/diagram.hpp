#pragma once
// The architecture diagram: the graph drawn as columns of boxes (one column per input tower: a
// CLIP's text and vision towers, an encoder and its decoder), each repeated block drawn once,
// expanded, with its count. Laid out here as plain geometry, so tests can check it (no overlap, no
// text past its box) without a browser; diagram_svg() only paints what this computes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "plan/plan.hpp"

namespace neurarch::render {

struct DiagramRect {
  double x = 0, y = 0, w = 0, h = 0;
  bool overlaps(const DiagramRect& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
  bool contains(const DiagramRect& o) const { return o.x >= x && o.y >= y && o.x + o.w <= x + w && o.y + o.h <= y + h; }
};

/// One drawn node: a graph node, or the representative of that node in a repeated block.
struct DiagramBox {
  int node = -1;                   ///< graph node drawn (for a group: its first instance's node)
  std::vector<std::string> lines;  ///< type; attributes; output shape and parameters
  DiagramRect rect;
  int group = -1;       ///< index into Diagram::groups, -1 outside repeated blocks
  int column = -1;      ///< index into Diagram::columns
  double heat = -1;     ///< 0..1 share of the largest activation bytes; -1 without a plan
  bool peak = false;    ///< the training step's memory peak happens at this node's backward
};

/// A repeated block drawn once: the boxes of its first instance inside, the count on top.
struct DiagramGroup {
  std::vector<std::string> lines;  ///< "× 32 · layers 0–31", parameters per layer
  std::vector<int> boxes;
  DiagramRect rect;
  int count = 0;
  double heat = -1;  ///< activation bytes per layer, as a share of the largest item's
};

struct DiagramEdge {
  int from = -1, to = -1;  ///< box indices
  bool cross = false;      ///< between columns (cross-attention, a projector into a language model)
  std::string label;       ///< what the edge carries across columns
};

struct DiagramColumn {
  std::string title;  ///< forward()'s argument that starts this column, with its shape
  DiagramRect rect;
};

struct Diagram {
  std::vector<DiagramColumn> columns;
  std::vector<DiagramBox> boxes;
  std::vector<DiagramGroup> groups;
  std::vector<DiagramEdge> edges;
  std::vector<std::string> legend;  ///< what the colours and the marker mean (plan overlay only)
  double width = 0, height = 0;
};

/// Metrics the layout and the painter share: a monospace face, so a line's width is its length.
struct DiagramMetrics {
  static constexpr double kFontSize = 12;
  static constexpr double kCharWidth = 7.4;  ///< DejaVu Sans Mono's advance is 0.602 em (7.22 px): rounded up
  static constexpr double kLineHeight = 16;
  static constexpr double kPadX = 10, kPadY = 8;
};

/// Code points in a UTF-8 string: what a monospace face gives one advance each.
std::size_t text_columns(const std::string& s);

/// The diagram of a graph; with a plan, activation bytes per node colour the boxes and the node
/// where the peak happens is marked (read from the plan, never recomputed).
Diagram layout_diagram(const graph::Graph& g, const plan::Plan* plan = nullptr);

/// The diagram as a standalone SVG document: deterministic (same graph, same bytes), presentation
/// attributes only (no style attribute, no script), a <title> on every box saying what it says.
std::string diagram_svg(const Diagram& d, const std::string& title);

}  // namespace neurarch::render
