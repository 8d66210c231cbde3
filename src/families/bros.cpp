// BROS (models/bros/modeling_bros.py, transformers 4.47.1): BERT embeddings, layers and pooler, plus a
// pairwise box encoding that every attention reads. Each token's box (four corners, dim_bbox coordinates) is
// subtracted from every other token's; each coordinate difference gets a dim_bbox_sinusoid_emb_1d sinusoid
// (x and y keep their own persistent inv_freq), and bbox_projection (no bias) maps the concatenation to one
// head's width: a [seq, seq, head_dim] tensor whose product with the queries is added to every layer's scores.
// embeddings.position_ids is a persistent buffer. The attention has only the eager path.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace bros_impl {
namespace {

using namespace blocks;
using graph::NodeType;

constexpr const char* kBoxProjection = "BBox_Projection";

/// bbox_embeddings: the pairwise sinusoids and their projection, computed once before the layers.
Value box_pairs(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& root) {
  const Config& c = in.config;
  const std::int64_t seq = x.shape.front();
  const std::int64_t coordinates = c.dim({"dim_bbox"}, 8);
  const std::int64_t per_coordinate = c.dim({"dim_bbox_sinusoid_emb_1d"}, 24);
  const std::int64_t sinusoid = c.dim({"dim_bbox_sinusoid_emb_2d"}, 192);
  const std::int64_t projection = c.dim({"dim_bbox_projection"}, 64);
  const std::int64_t head_dim = x.shape.back() / c.dim({"num_attention_heads"}, 12);
  Scope emb = root / "bbox_embeddings";
  Scope sin = emb / "bbox_sinusoid_emb";
  // A function of the boxes alone: no token input, nothing trained.
  auto pairs = b.node(NodeType::Embedding, "BBox_Sinusoid", {seq, seq, coordinates * per_coordinate}, {}, sin);
  b.buffer(pairs, (sin / "x_pos_emb")("inv_freq"), {(per_coordinate + 1) / 2}, DType::F32);
  b.buffer(pairs, (sin / "y_pos_emb")("inv_freq"), {(per_coordinate + 1) / 2}, DType::F32);
  auto projected = dense(b, pairs, kBoxProjection, emb / "bbox_projection", sinusoid, projection, false);
  if (projection != head_dim)
    b.fail(projected, fmt::format("dim_bbox_projection {} must equal the attention head width {}: the queries "
                                  "multiply the box encoding head by head",
                                  projection, head_dim));
  b.note("every BROS attention also multiplies its queries by the [seq, seq, head_dim] box encoding (as many "
         "FLOPs as q times k); the attention cost counted here leaves that product out");
  return x;
}

void add_box_scores(const BuildInput&, GraphBuilder& b, const Value& attention, const Scope&, std::int64_t) {
  std::optional<Value> boxes;
  for (const auto& n : b.graph().nodes)
    if (n.name == kBoxProjection) boxes = Value{n.index, n.out};
  if (boxes) add_score_bias(b, attention, *boxes);
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "bros",
                                   .pooler = bert::PoolerUse::Always,
                                   .position_ids_buffer = true,
                                   .cross_attention_follows_config = true,
                                   .sdpa = false,
                                   .before_layers = box_pairs,
                                   .attention_extras = add_box_scores};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace bros_impl

const Family& bros_family() {
  static const Family family{"bros", "models/bros/modeling_bros.py",
                             classes("Bros", {heads::ForTokenClassification}), bros_impl::build};
  return family;
}

}  // namespace neurarch::families
