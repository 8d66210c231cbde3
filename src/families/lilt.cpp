// LiLT (models/lilt/modeling_lilt.py, transformers 4.47.1): a RoBERTa text stream beside a layout stream
// hidden_size / channel_shrink_ratio wide. The layout stream embeds the six box lookups (hidden_size / 6 each,
// concatenated), projects them (box_linear_embeddings), adds its own position table and normalises. In every
// layer each stream has its own q/k/v, output and FFN (the layout ones prefixed layout_, all widths divided by
// the ratio), and the two score matrices are summed before either softmax (bi-directional attention
// complementation). The attention has only the eager path. Heads are RoBERTa's.
#include <algorithm>

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace lilt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Widths {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::int64_t ratio = 1;
  std::int64_t layout() const { return hidden / ratio; }
};

/// The layout stream's embeddings: box lookups -> box_linear_embeddings (+ box positions) -> LayerNorm.
Value layout_embeddings(const BuildInput& in, GraphBuilder& b, const Value& ids, const Widths& w, const Scope& root,
                        std::int64_t position_offset, double dropout) {
  const Config& c = in.config;
  Scope emb = root / "layout_embeddings";
  const std::int64_t rows = c.dim({"max_2d_position_embeddings"}, 1024);
  const std::int64_t part = w.hidden / 6;
  auto boxes = b.node(NodeType::Embedding, "Box_Embedding", {ids.shape.front(), 6 * part}, {ids}, emb);
  for (const char* table : {"x_position_embeddings", "y_position_embeddings", "h_position_embeddings",
                            "w_position_embeddings"})
    b.parameter(boxes, (emb / table)("weight"), {rows, part}, graph::TensorRole::Embedding);
  // box_linear_embeddings reads hidden_size features: six hidden_size / 6 lookups must fill them exactly.
  auto x = dense(b, boxes, "Box_Projection", emb / "box_linear_embeddings", w.hidden, w.layout(), true);
  x = learned_positions(b, x, "Box_Position_Embedding", emb / "box_position_embeddings",
                        c.dim({"max_position_embeddings"}, 512), w.layout(), position_offset);
  x = norm(b, x, "Layout_Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = dropout;
  return x;
}

/// A BERT self-output: residual sum and LayerNorm under `module`.
Value residual_norm(GraphBuilder& b, const Value& h, const Value& residual, const Scope& module,
                    const BlockNames& n, int k, const std::string& stream) {
  auto sum = add(b, h, residual, stream + n.add(k));
  return norm(b, sum, stream + n.norm(k, NormKind::LayerNorm), {module / "LayerNorm"});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Widths w{.hidden = c.dim({"hidden_size"}, 768),
                 .heads = c.dim({"num_attention_heads"}, 12),
                 .intermediate = c.dim({"intermediate_size"}, 3072),
                 .ratio = c.dim({"channel_shrink_ratio"}, 4)};
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t max_positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t vocab = c.dim({"vocab_size"}, 30522);
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::string position_type = c.text({"position_embedding_type"}, "absolute");
  const bool relative = position_type == "relative_key" || position_type == "relative_key_query";
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);

  // Both streams number positions from pad_token_id + 1, as RoBERTa does.
  const std::int64_t offset = std::max<std::int64_t>(pad + 1, 0);
  bert::Trunk t{.root = in.head == Head::Base ? Scope() : Scope("lilt"),
                .seq = in.sequence_length(std::max<std::int64_t>(max_positions - offset, 1)),
                .hidden = w.hidden,
                .intermediate = w.intermediate,
                .embedding = w.hidden,
                .vocab = vocab,
                .activation = act};
  Scope emb = t.root / "embeddings";
  auto ids = b.input({t.seq}, "tokens");
  auto x = token_embedding(b, ids, "Token_Embedding", emb / "word_embeddings", vocab, w.hidden);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  t.word_embeddings = (emb / "word_embeddings")("weight");
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      w.hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", max_positions, w.hidden,
                        position_type == "absolute" ? offset : 0);
  if (position_type != "absolute")
    b.note(fmt::format("position_embedding_type={}: the absolute position table is stored but not added",
                       position_type));
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = hidden_dropout;
  auto lay = layout_embeddings(in, b, ids, w, t.root, offset, hidden_dropout);
  if (w.hidden % w.ratio != 0 || (w.hidden / w.heads) % w.ratio != 0)
    b.fail(lay, fmt::format("channel_shrink_ratio {} does not divide hidden_size {} and its {}-wide heads", w.ratio,
                            w.hidden, w.hidden / w.heads));

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    Scope l = t.root / "encoder" / "layer" / i;
    Scope attn = l / "attention";
    Scope self = attn / "self";
    const BlockNames n{i};
    // The layout attention first: the text scores add its scores (and it adds theirs, which the graph, being
    // acyclic, records once).
    auto layout_attention =
        attention(b, lay, "Layout_" + n.attention(),
                  {.hidden = w.layout(), .heads = w.heads, .module = attn, .q = self / "layout_query",
                   .k = self / "layout_key", .v = self / "layout_value", .o = attn / "layout_output" / "dense",
                   .dropout = attention_dropout, .output_dropout = hidden_dropout});
    b.at(layout_attention).attention->sdpa = false;
    auto text_attention =
        attention(b, x, n.attention(),
                  {.hidden = w.hidden, .heads = w.heads, .module = attn, .q = self / "query", .k = self / "key",
                   .v = self / "value", .o = attn / "output" / "dense", .dropout = attention_dropout,
                   .output_dropout = hidden_dropout});
    b.at(text_attention).attention->sdpa = false;
    add_score_bias(b, text_attention, layout_attention);
    if (relative)
      b.parameter(text_attention, self("distance_embedding.weight"), {2 * max_positions - 1, w.hidden / w.heads}, graph::TensorRole::Embedding);
    x = residual_norm(b, text_attention, x, attn / "output", n, 1, "");
    lay = residual_norm(b, layout_attention, lay, attn / "layout_output", n, 1, "Layout_");

    auto f = feed_forward(b, x, n.ffn(),
                          {.hidden = w.hidden, .intermediate = w.intermediate, .activation = act, .module = l,
                           .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                           .output_dropout = hidden_dropout});
    x = residual_norm(b, f, x, l / "output", n, 2, "");
    auto g = feed_forward(b, lay, "Layout_" + n.ffn(),
                          {.hidden = w.layout(), .intermediate = w.intermediate / w.ratio, .activation = act,
                           .module = l, .up = l / "layout_intermediate" / "dense",
                           .down = l / "layout_output" / "dense", .output_dropout = hidden_dropout});
    lay = residual_norm(b, g, lay, l / "layout_output", n, 2, "Layout_");
  }
  b.set_block(-1);
  t.x = x;
  static const bert::Layout heads{.prefix = "lilt", .heads = bert::HeadStyle::Roberta,
                                  .pooler = bert::PoolerUse::BaseOnly};
  return bert::heads(in, b, heads, t);
}

}  // namespace
}  // namespace lilt_impl

const Family& lilt_family() {
  static const Family family{"lilt", "models/lilt/modeling_lilt.py",
                             classes("Lilt",
                                     {heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             lilt_impl::build};
  return family;
}

}  // namespace neurarch::families
