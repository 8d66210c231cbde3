// LayoutLM (models/layoutlm/modeling_layoutlm.py, transformers 4.47.1): BERT whose embeddings
// also add four tables for the token's bounding box (x for left/right, y for top/bottom, plus
// height and width), each of max_2d_position_embeddings rows. LayoutLMModel predates
// add_pooling_layer, so every class, the MLM one included, carries the pooler.
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace layoutlm_impl {
namespace {

graph::Value box_positions(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& x,
                           const graph::Scope& emb) {
  struct Table {
    const char* module;
    const char* node;
  };
  // The x table is read twice (left and right edge), the y table twice (top and bottom).
  static const Table tables[] = {{"x_position_embeddings", "Box_X_Embedding"},
                                 {"y_position_embeddings", "Box_Y_Embedding"},
                                 {"h_position_embeddings", "Box_Height_Embedding"},
                                 {"w_position_embeddings", "Box_Width_Embedding"}};
  const std::int64_t rows = in.config.dim({"max_2d_position_embeddings"}, 1024);
  graph::Value out = x;
  for (const auto& t : tables) out = blocks::added_embedding(b, out, t.node, emb / t.module, rows, x.shape.back());
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "layoutlm", .defaults = {}, .pooler = bert::PoolerUse::Always, .extra_embeddings = box_positions};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace layoutlm_impl

const Family& layoutlm_family() {
  static const Family family{"layoutlm", "models/layoutlm/modeling_layoutlm.py",
                             classes("LayoutLM", heads::kEncoder), layoutlm_impl::build};
  return family;
}

}  // namespace neurarch::families
