// MarkupLM (models/markuplm/modeling_markuplm.py, transformers 4.47.1): BERT layers and heads under RoBERTa-style
// positions (numbered from pad_token_id + 1), whose embeddings also add each token's XPath: max_depth tag tables
// and max_depth subscript tables (xpath_unit_hidden_size wide each), summed, then a ReLU MLP
// (xpath_unitseq2_inner -> inner2emb) back to hidden_size. xpath_unitseq2_embeddings is built but never called.
// The attention has only the eager path.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace markuplm_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value xpath_embeddings(const BuildInput& in, GraphBuilder& b, const Value& x, const Scope& emb) {
  const Config& c = in.config;
  const std::int64_t hidden = x.shape.back();
  const std::int64_t depth = c.dim({"max_depth"}, 50);
  const std::int64_t unit = c.dim({"xpath_unit_hidden_size"}, 32);
  const std::int64_t tags = c.dim({"max_xpath_tag_unit_embeddings"}, 256);
  const std::int64_t subscripts = c.dim({"max_xpath_subs_unit_embeddings"}, 1024);
  Scope xp = emb / "xpath_embeddings";
  Shape units = x.shape;
  units.back() = depth * unit;
  auto lookup = b.node(NodeType::Embedding, "XPath_Embedding", units, {x}, xp);
  // Stored and loaded, but forward() never calls it, so it never gets a gradient or optimizer state: idle.
  linear_tensors(b, lookup, xp / "xpath_unitseq2_embeddings", depth * unit, hidden, true, graph::Operand::Idle);
  b.note(fmt::format("xpath_unitseq2_embeddings ({} parameters) is built but never called by forward(): it gets no "
                     "gradient or optimizer state (counted as trainable, as requires_grad says, without either)",
                     depth * unit * hidden + hidden));
  for (std::int64_t i = 0; i < depth; ++i) b.parameter(lookup, (xp / "xpath_tag_sub_embeddings" / i)("weight"), {tags, unit}, graph::TensorRole::Embedding);
  for (std::int64_t i = 0; i < depth; ++i)
    b.parameter(lookup, (xp / "xpath_subs_sub_embeddings" / i)("weight"), {subscripts, unit}, graph::TensorRole::Embedding);
  // The reference fills absent xpath ids with tag_pad_id / subs_pad_id, which must be rows of the tables.
  const std::int64_t tag_pad = c.integer({"tag_pad_id"}, 216);
  const std::int64_t subs_pad = c.integer({"subs_pad_id"}, 1001);
  if (tag_pad < 0 || tag_pad >= tags)
    b.fail(lookup, fmt::format("tag_pad_id {} is not a row of the {}-row xpath tag tables", tag_pad, tags));
  if (subs_pad < 0 || subs_pad >= subscripts)
    b.fail(lookup, fmt::format("subs_pad_id {} is not a row of the {}-row xpath subscript tables", subs_pad,
                               subscripts));

  auto inner = dense(b, lookup, "XPath_Inner", xp / "xpath_unitseq2_inner", depth * unit, 4 * hidden, true, "relu");
  b.at(inner).dropout = c.number({"hidden_dropout_prob"}, 0.1);
  auto projected = dense(b, inner, "XPath_To_Embedding", xp / "inner2emb", 4 * hidden, hidden, true);
  return add(b, projected, x, "XPath_Add");
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "markuplm",
                                   .roberta_positions = true,
                                   .sdpa = false,
                                   .extra_embeddings = xpath_embeddings};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace markuplm_impl

const Family& markuplm_family() {
  static const Family family{"markuplm", "models/markuplm/modeling_markuplm.py",
                             classes("MarkupLM",
                                     {heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             markuplm_impl::build};
  return family;
}

}  // namespace neurarch::families
