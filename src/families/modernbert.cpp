// ModernBERT (models/modernbert/modeling_modernbert.py + configuration_modernbert.py, transformers
// 4.57.6): a pre-norm encoder with fused Wqkv, a gated MLP whose Wi holds input and gate
// ([2 * intermediate, hidden]), rotary positions and no absolute table. Every
// global_attn_every_n_layers-th layer (from layer 0) attends globally, the others inside a
// local_attention-token window; the two kinds rotate with different bases (no tensors). The first
// layer has no attention norm (Identity). attention_bias, mlp_bias, norm_bias, classifier_bias and
// decoder_bias switch the biases. Heads read the final hidden state through head (dense + act +
// norm); sequence classification pools first (cls token or masked mean) then runs the head.
#include "families/modernbert.hpp"

#include <fmt/format.h>

namespace neurarch::families {

using namespace blocks;
using graph::NodeType;

modernbert::Spec modernbert::read(const Config& c) {
  Spec s{.vocab = c.dim({"vocab_size"}, 50368),
         .hidden = c.dim({"hidden_size"}, 768),
         .intermediate = c.dim({"intermediate_size"}, 1152),
         .layers = c.dim({"num_hidden_layers"}, 22),
         .heads = c.dim({"num_attention_heads"}, 12),
         .positions = c.dim({"max_position_embeddings"}, 8192),
         .pad = 0,
         .activation = c.text({"hidden_activation"}, "gelu"),
         .norm_bias = c.flag({"norm_bias"}, false),
         .attention_bias = c.flag({"attention_bias"}, false),
         .mlp_bias = c.flag({"mlp_bias"}, false),
         .attention_dropout = c.number({"attention_dropout"}, 0.0)};
  s.pad = c.integer({"pad_token_id"}, 50283);
  return s;
}

Scope modernbert::root(const BuildInput& in) { return in.head == Head::Base ? Scope() : Scope("model"); }

Value modernbert::embeddings(const BuildInput& in, GraphBuilder& b, const Spec& s) {
  const Scope emb = root(in) / "embeddings";
  const std::int64_t seq = in.sequence_length(s.positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "tok_embeddings", s.vocab, s.hidden);
  if (s.pad >= s.vocab)
    b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", s.pad, s.vocab));
  if (seq > s.positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); rotary positions extrapolate", seq,
                       s.positions));
  x = norm(b, x, "Embedding_LayerNorm", {emb / "norm", NormKind::LayerNorm, s.norm_bias});
  b.at(x).dropout = in.config.number({"embedding_dropout"}, 0.0);
  return x;
}

Value modernbert::layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& root, const Spec& s,
                        AttentionSpec attn, FeedForwardSpec ffn) {
  const Scope l = root / "layers" / i;
  const BlockNames n{i};
  Value h = x;
  if (i > 0) h = norm(b, h, n.norm(1, NormKind::LayerNorm), {l / "attn_norm", NormKind::LayerNorm, s.norm_bias});
  attn.hidden = s.hidden;
  attn.heads = s.heads;
  attn.module = l / "attn";
  attn.o = attn.module / "Wo";
  attn.qkv_bias = s.attention_bias;
  attn.o_bias = s.attention_bias;
  attn.dropout = s.attention_dropout;
  attn.output_dropout = s.attention_dropout;
  attn.rotary = true;
  h = attention(b, h, n.attention(), attn);
  const Value residual = add(b, h, x, n.add(1));
  h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "mlp_norm", NormKind::LayerNorm, s.norm_bias});
  ffn.hidden = s.hidden;
  ffn.intermediate = s.intermediate;
  ffn.activation = s.activation;
  ffn.gated = true;
  ffn.module = l / "mlp";
  ffn.down = ffn.module / "Wo";
  ffn.gate_up = ffn.module / "Wi";
  ffn.bias = s.mlp_bias;
  ffn.down_bias = s.mlp_bias;
  h = feed_forward(b, h, n.ffn(), ffn);
  return add(b, h, residual, n.add(2));
}

Value modernbert::final_norm(GraphBuilder& b, const Value& x, const Scope& root, const Spec& s) {
  return norm(b, x, "Final_LayerNorm", {root / "final_norm", NormKind::LayerNorm, s.norm_bias});
}

Value modernbert::prediction_head(GraphBuilder& b, const Config& c, const Value& x, const Scope& module,
                                  const Spec& s) {
  auto h = dense(b, x, "Head_Transform", module / "dense", s.hidden, s.hidden, c.flag({"classifier_bias"}, false),
                 c.text({"classifier_activation"}, "gelu"));
  return norm(b, h, "Head_LayerNorm", {module / "norm", NormKind::LayerNorm, s.norm_bias});
}

namespace modernbert_impl {
namespace {

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const modernbert::Spec s = modernbert::read(c);
  const std::int64_t global_every = c.dim({"global_attn_every_n_layers"}, 3);
  const std::int64_t local_window = c.dim({"local_attention"}, 128);
  const double mlp_dropout = c.number({"mlp_dropout"}, 0.0);
  const Scope root = modernbert::root(in);
  const std::int64_t hidden = s.hidden, vocab = s.vocab;

  // Every global_attn_every_n_layers-th layer attends globally; the fused Wqkv projects q, k and v.
  auto x = modernbert::embeddings(in, b, s);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope attn = root / "layers" / i / "attn";
    x = modernbert::layer(b, x, i, root, s,
                          {.window = i % global_every == 0 ? 0 : local_window, .qkv = attn / "Wqkv"},
                          {.output_dropout = mlp_dropout});
  }
  b.set_block(-1);
  x = modernbert::final_norm(b, x, root, s);
  if (in.head == Head::Base) return x;

  auto head = [&](const Value& v) { return modernbert::prediction_head(b, c, v, Scope("head"), s); };
  switch (in.head) {
    case Head::MaskedLM: {
      const bool tie = c.flag({"tie_word_embeddings"}, true);
      LmHeadSpec spec{.module = Scope("decoder"), .hidden = hidden, .vocab = vocab,
                      .bias = c.flag({"decoder_bias"}, true)};
      if (tie) spec.tied_weight = (root / "embeddings" / "tok_embeddings")("weight");
      return lm_head(b, head(x), "LM_Head", spec);
    }
    case Head::SequenceClassification: {
      const std::string pooling = c.text({"classifier_pooling"}, "cls");
      auto pooled = b.node(NodeType::Pooler, pooling == "mean" ? "Mean_Pool" : "CLS_Pool", {hidden}, {x});
      if (pooling != "cls" && pooling != "mean")
        b.fail(pooled, fmt::format("classifier_pooling '{}' is neither cls nor mean", pooling));
      return classifier(b, head(pooled), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, head(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, head(x), "QA_Head", Scope("classifier"), hidden, in.num_labels(), true);
    default:
      return x;
  }
}

}  // namespace
}  // namespace modernbert_impl

const Family& modernbert_family() {
  static const Family family{"modernbert", "models/modernbert/modeling_modernbert.py",
                             classes("ModernBert", heads::kEncoder), modernbert_impl::build};
  return family;
}

}  // namespace neurarch::families
