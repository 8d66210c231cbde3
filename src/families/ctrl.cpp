// CTRL (models/ctrl/modeling_ctrl.py + configuration_ctrl.py, transformers 4.47.1): token embedding `w`
// scaled by sqrt(n_embd) plus a sinusoidal table of n_positions rows (a plain attribute, neither parameter
// nor buffer: never saved, and a longer sequence has no row); pre-norm layers with biased Wq/Wk/Wv/dense
// attention (no attention dropout) and a ReLU MLP `ffn.0` / `ffn.2` (dff wide), each sublayer's output
// dropped with resid_pdrop; final `layernorm`. The LM head is biased and its weight tied to `w`;
// sequence classification scores every position with a bias-free `classifier` and keeps the last token.
#include <fmt/format.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace ctrl_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 246534);
  const std::int64_t positions = c.dim({"n_positions", "max_position_embeddings"}, 256);
  const std::int64_t hidden = c.dim({"n_embd", "hidden_size"}, 1280);
  const std::int64_t dff = c.dim({"dff"}, 8192);
  const std::int64_t layers = c.dim({"n_layer", "num_hidden_layers"}, 48);
  const std::int64_t heads = c.dim({"n_head", "num_attention_heads"}, 16);
  const double resid_dropout = c.number({"resid_pdrop"}, 0.1);

  const Scope root = in.head == Head::Base ? Scope() : Scope("transformer");
  const std::int64_t seq = in.sequence_length(positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "w", vocab, hidden);
  x = b.node(NodeType::LearnedPosEmbed, "Sinusoidal_Position_Embedding", x.shape, {x});
  if (seq > positions)
    b.fail(x, fmt::format("requested sequence {} exceeds the {} rows of the sinusoidal position table", seq,
                          positions));
  b.at(x).dropout = c.number({"embd_pdrop"}, 0.1);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "h" / i;
    const Scope attn = l / "multi_head_attention";
    const Scope ffn = l / "ffn";
    blocks::PreNormLayer layer{
        .norm1 = {l / "layernorm1"},
        .attention = {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .q = attn / "Wq",
                      .k = attn / "Wk", .v = attn / "Wv", .o = attn / "dense", .output_dropout = resid_dropout},
        .norm2 = {l / "layernorm2"},
        .ffn = {.hidden = hidden, .intermediate = dff, .activation = "relu", .module = ffn, .up = ffn / 0,
                .down = ffn / 2, .output_dropout = resid_dropout},
    };
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab, .bias = true};
      if (c.flag({"tie_word_embeddings"}, true)) head.tied_weight = (root / "w")("weight");
      return lm_head(b, x, "LM_Head", head);
    }
    case Head::SequenceClassification: {
      auto logits = classifier(b, x, "Classifier", Scope("classifier"), hidden, in.num_labels(), false);
      // Every position is scored; the logits of the last non-pad token are kept.
      return b.node(NodeType::Pooler, "Last_Token_Pool", {in.num_labels()}, {logits});
    }
    default:
      return x;
  }
}

}  // namespace
}  // namespace ctrl_impl

const Family& ctrl_family() {
  static const Family family{"ctrl", "models/ctrl/modeling_ctrl.py",
                             classes("CTRL", {heads::LMHeadModel, heads::ForSequenceClassification}), ctrl_impl::build};
  return family;
}

}  // namespace neurarch::families
