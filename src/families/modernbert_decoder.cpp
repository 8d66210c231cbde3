// ModernBERT decoder (models/modernbert_decoder/modeling_modernbert_decoder.py + configuration_, transformers
// 4.57.6): ModernBERT's layer made causal, with q/k/v as separate projections (Wo stays). layer_types decides
// full or sliding attention per layer (absent: every global_attn_every_n_layers-th layer from 0 is full); the
// window is local_attention / 2. The first layer has no attention norm. The causal LM runs the prediction head
// (lm_head.dense + act + lm_head.norm) then `decoder` (tied to the token embedding, decoder_bias); sequence
// classification runs `head` on every position, then `classifier`, and keeps the last non-pad token.
#include <fmt/format.h>

#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;
using graph::NodeType;

std::vector<std::int64_t> layer_windows(const Config& c, std::int64_t layers, std::int64_t window) {
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  const std::int64_t every = c.dim({"global_attn_every_n_layers"}, 3);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), 0);
  for (std::int64_t i = 0; i < layers; ++i)
    if (i % every != 0) out[static_cast<std::size_t>(i)] = window;
  return out;
}

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
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const std::int64_t pad = c.integer({"pad_token_id"}, 50283);
  const auto windows = layer_windows(c, layers, c.dim({"local_attention"}, 128) / 2);

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
                  {.hidden = hidden, .heads = heads, .causal = true, .window = windows[static_cast<std::size_t>(i)],
                   .module = attn, .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj",
                   .o = attn / "Wo", .qkv_bias = attention_bias, .o_bias = attention_bias,
                   .dropout = attention_dropout, .output_dropout = attention_dropout, .rotary = true});
    const Value residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "mlp_norm", NormKind::LayerNorm, norm_bias});
    const Scope mlp = l / "mlp";
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = activation, .gated = true,
                      .module = mlp, .down = mlp / "Wo", .gate_up = mlp / "Wi", .bias = mlp_bias,
                      .down_bias = mlp_bias, .inner_dropout = c.number({"mlp_dropout"}, 0.0)});
    x = add(b, h, residual, n.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "final_norm", NormKind::LayerNorm, norm_bias});
  if (in.head == Head::Base) return x;

  // ModernBertDecoderPredictionHead: dense (classifier_bias) + classifier_activation + norm.
  auto prediction_head = [&](const Value& v, const Scope& module) {
    auto h = dense(b, v, "Head_Transform", module / "dense", hidden, hidden, c.flag({"classifier_bias"}, false),
                   c.text({"classifier_activation"}, "gelu"));
    return norm(b, h, "Head_LayerNorm", {module / "norm", NormKind::LayerNorm, norm_bias});
  };
  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec spec{.module = Scope("decoder"), .hidden = hidden, .vocab = vocab,
                      .bias = c.flag({"decoder_bias"}, true)};
      if (c.flag({"tie_word_embeddings"}, true)) spec.tied_weight = (root / "embeddings" / "tok_embeddings")("weight");
      return lm_head(b, prediction_head(x, Scope("lm_head")), "LM_Head", spec);
    }
    case Head::SequenceClassification: {
      auto h = prediction_head(x, Scope("head"));
      b.at(h).dropout = c.number({"classifier_dropout"}, 0.0);
      auto logits = classifier(b, h, "Classifier", Scope("classifier"), hidden, in.num_labels(),
                               c.flag({"classifier_bias"}, false));
      // Every position is scored; the logits of the last non-pad token are kept.
      return b.node(NodeType::Pooler, "Last_Token_Pool", {in.num_labels()}, {logits});
    }
    default:
      return x;
  }
}

}  // namespace

const Family& modernbert_decoder_family() {
  static const Family family{"modernbert-decoder", "models/modernbert_decoder/modeling_modernbert_decoder.py",
                             classes("ModernBertDecoder", {heads::ForCausalLM, heads::ForSequenceClassification}),
                             build};
  return family;
}

}  // namespace neurarch::families
