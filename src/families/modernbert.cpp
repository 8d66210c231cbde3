// ModernBERT (models/modernbert/modeling_modernbert.py + configuration_modernbert.py, transformers
// 4.57.6): a pre-norm encoder with fused Wqkv, a gated MLP whose Wi holds input and gate
// ([2 * intermediate, hidden]), rotary positions and no absolute table. Every
// global_attn_every_n_layers-th layer (from layer 0) attends globally, the others inside a
// local_attention-token window; the two kinds rotate with different bases (no tensors). The first
// layer has no attention norm (Identity). attention_bias, mlp_bias, norm_bias, classifier_bias and
// decoder_bias switch the biases. Heads read the final hidden state through head (dense + act +
// norm); sequence classification pools first (cls token or masked mean) then runs the head.
#include <fmt/format.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 50368);
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 1152);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 22);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 8192);
  const std::string activation = c.text({"hidden_activation"}, "gelu");
  const bool norm_bias = c.flag({"norm_bias"}, false);
  const bool attention_bias = c.flag({"attention_bias"}, false);
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  const std::int64_t global_every = c.dim({"global_attn_every_n_layers"}, 3);
  const std::int64_t local_window = c.dim({"local_attention"}, 128);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const double mlp_dropout = c.number({"mlp_dropout"}, 0.0);
  const std::int64_t pad = c.integer({"pad_token_id"}, 50283);

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::int64_t seq = in.sequence_length(positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings" / "tok_embeddings", vocab, hidden);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  if (seq > positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); rotary positions extrapolate", seq,
                       positions));
  x = norm(b, x, "Embedding_LayerNorm", {root / "embeddings" / "norm", NormKind::LayerNorm, norm_bias});
  b.at(x).dropout = c.number({"embedding_dropout"}, 0.0);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const BlockNames n{i};
    Value h = x;
    if (i > 0) h = norm(b, h, n.norm(1, NormKind::LayerNorm), {l / "attn_norm", NormKind::LayerNorm, norm_bias});
    const Scope attn = l / "attn";
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .window = i % global_every == 0 ? 0 : local_window,
                   .module = attn, .o = attn / "Wo", .qkv = attn / "Wqkv", .qkv_bias = attention_bias,
                   .o_bias = attention_bias, .dropout = attention_dropout, .output_dropout = attention_dropout,
                   .rotary = true});
    const Value residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "mlp_norm", NormKind::LayerNorm, norm_bias});
    const Scope mlp = l / "mlp";
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = activation, .gated = true,
                      .module = mlp, .down = mlp / "Wo", .gate_up = mlp / "Wi", .bias = mlp_bias,
                      .down_bias = mlp_bias, .output_dropout = mlp_dropout});
    x = add(b, h, residual, n.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "final_norm", NormKind::LayerNorm, norm_bias});
  if (in.head == Head::Base) return x;

  // ModernBertPredictionHead: dense (classifier_bias) + classifier_activation + norm.
  auto head = [&](const Value& v) {
    auto h = dense(b, v, "Head_Transform", Scope("head") / "dense", hidden, hidden, c.flag({"classifier_bias"}, false),
                   c.text({"classifier_activation"}, "gelu"));
    return norm(b, h, "Head_LayerNorm", {Scope("head") / "norm", NormKind::LayerNorm, norm_bias});
  };
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

const Family& modernbert_family() {
  static const Family family{"modernbert", "models/modernbert/modeling_modernbert.py",
                             classes("ModernBert", heads::kEncoder), build};
  return family;
}

}  // namespace neurarch::families
