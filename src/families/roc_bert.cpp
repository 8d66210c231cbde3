// RoCBert (models/roc_bert/modeling_roc_bert.py, transformers 4.47.1): BERT whose embeddings
// also look up each character's pronunciation (pronunciation_embed) and glyph shape
// (shape_embed). With concat_input the enabled channels are concatenated with the word
// embedding and mapped back to hidden_size (map_inputs_layer); without it they are summed. Both
// tables exist even when their channel is disabled. BERT's cls.* heads and pooler rules.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace roc_bert_impl {
namespace {

using namespace blocks;

Value glyph_and_pronunciation(const BuildInput& in, GraphBuilder& b, const Value& words, const Scope& emb) {
  const Config& c = in.config;
  // RoCBertConfig's defaults.
  const bool use_pronunciation = c.flag({"enable_pronunciation"}, true);
  const bool use_shape = c.flag({"enable_shape"}, true);
  const bool concat = c.flag({"concat_input"}, true);
  const std::int64_t pron_dim = c.dim({"pronunciation_embed_dim"}, 768);
  const std::int64_t shape_dim = c.dim({"shape_embed_dim"}, 512);
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);
  const std::int64_t hidden = words.shape.back();
  const std::int64_t seq = words.shape.front();

  auto table = [&](const char* name, const char* module, std::int64_t rows, std::int64_t dim) {
    auto out = b.node(graph::NodeType::Embedding, name, {seq, dim}, {words}, emb / module);
    b.parameter(out, (emb / module)("weight"), {rows, dim}, graph::TensorRole::Embedding);
    if (pad >= rows) b.fail(out, fmt::format("pad_token_id {} is not a row of the {}-row {}", pad, rows, module));
    return out;
  };
  auto pron =
      table("Pronunciation_Embedding", "pronunciation_embed", c.dim({"pronunciation_vocab_size"}, 910), pron_dim);
  auto shape = table("Shape_Embedding", "shape_embed", c.dim({"shape_vocab_size"}, 24858), shape_dim);

  if (concat) {
    const std::int64_t width = hidden + (use_pronunciation ? pron_dim : 0) + (use_shape ? shape_dim : 0);
    auto out = b.node(graph::NodeType::Linear, "Input_Map", {seq, hidden}, {words, pron, shape},
                      emb / "map_inputs_layer");
    linear_tensors(b, out, emb / "map_inputs_layer", width, hidden, true);
    return out;
  }
  auto out = b.node(graph::NodeType::Add, "Embedding_Sum", {seq, hidden}, {words, pron, shape});
  if ((use_pronunciation && pron_dim != hidden) || (use_shape && shape_dim != hidden))
    b.fail(out, "without concat_input the pronunciation and shape embeddings are added, so they need hidden_size");
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "roc_bert", .defaults = {}, .word_extras = glyph_and_pronunciation};
  return bert::build(in, b, layout);
}

}  // namespace
}  // namespace roc_bert_impl

const Family& roc_bert_family() {
  static const Family family{"roc_bert", "models/roc_bert/modeling_roc_bert.py",
                             classes("RoCBert", heads::kRoberta), roc_bert_impl::build};
  return family;
}

}  // namespace neurarch::families
