// Zamba (models/zamba/modeling_zamba.py + configuration_zamba.py, transformers 4.47.1): a Mamba stack in which
// the "hybrid" layers of layers_block_type (absent: layers 2, then every attn_layer_period-th from 3 +
// attn_layer_offset) first run one shared transformer block on the concatenation of the hidden state and
// the token embeddings (RMSNorm over attention_hidden_size = 2 x hidden, attention without positions whose
// heads are attention_head_dim wide, RMSNorm, gated MLP; no residual), project it through the layer's own
// `linear`, add it to the hidden state and continue with the layer's Mamba block. The shared block is one
// module: every hybrid layer's copy aliases the one save_pretrained keeps (see build). The Mamba
// mixer splits its inner channels over n_mamba_heads: x_proj_weight, dt_proj_weight/bias, A_log and D are
// stacked per head.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/decoder_heads.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace zamba_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t vocab, hidden, intermediate, layers, heads, kv_heads, attention_hidden, head_dim, positions;
  std::int64_t inner, state, conv_kernel, dt_rank, mamba_heads;
  bool conv_bias, proj_bias;
  std::string activation;
};

std::vector<std::string> block_types(const Config& c, std::int64_t layers) {
  std::vector<std::string> out;
  if (const auto* listed = c.raw({"layers_block_type"}); listed && listed->is_array()) {
    for (const auto& v : *listed) out.push_back(v.is_string() ? v.get<std::string>() : "");
    out.resize(static_cast<std::size_t>(layers), "mamba");
    return out;
  }
  const std::int64_t period = c.integer({"attn_layer_period"}, 6);
  const std::int64_t offset = c.integer({"attn_layer_offset"}, 4);
  for (std::int64_t i = 0; i < layers; ++i) {
    const bool hybrid = i < 3 ? i == 2 : period > 0 && (i - 3) % period == offset;
    out.push_back(hybrid ? "hybrid" : "mamba");
  }
  return out;
}

// The multi-head Mamba mixer: one StateSpaceMixer node, tensors in the order the activation model reads
// (in_proj, conv1d, x_proj, dt_proj, A_log, D, out_proj).
Value mixer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& m, const Dims& d) {
  auto out = b.node(NodeType::StateSpaceMixer, fmt::format("Mixer_{}", i), x.shape, {x}, m);
  b.at(out).ssm = graph::StateSpaceAttrs{.version = 1, .inner = d.inner, .state = d.state,
                                         .conv_kernel = d.conv_kernel, .time_step_rank = d.dt_rank,
                                         .projection = 2 * d.inner};
  const std::int64_t per_head = d.mamba_heads > 0 ? d.inner / d.mamba_heads : 0;
  linear_tensors(b, out, m / "in_proj", d.hidden, 2 * d.inner, d.proj_bias);
  b.parameter(out, (m / "conv1d")("weight"), {d.inner, 1, d.conv_kernel},
              graph::TensorRole::Conv, graph::Operand::Internal);
  if (d.conv_bias) b.parameter(out, (m / "conv1d")("bias"), {d.inner}, graph::TensorRole::Bias);
  b.parameter(out, m("x_proj_weight"), {d.mamba_heads, d.dt_rank + 2 * d.state, per_head}, graph::TensorRole::Stacked,
              graph::Operand::Internal);
  b.parameter(out, m("dt_proj_weight"), {d.mamba_heads, per_head, d.dt_rank}, graph::TensorRole::Stacked,
              graph::Operand::Internal);
  b.parameter(out, m("dt_proj_bias"), {d.mamba_heads, per_head}, graph::TensorRole::Bias);
  b.parameter(out, m("A_log"), {d.mamba_heads, per_head, d.state}, graph::TensorRole::Other);
  b.parameter(out, m("D"), {d.mamba_heads, per_head}, graph::TensorRole::Other);
  linear_tensors(b, out, m / "out_proj", d.inner, d.hidden, d.proj_bias, graph::Operand::Inner);
  if (d.mamba_heads <= 0 || d.inner % d.mamba_heads != 0)
    b.fail(out, fmt::format("n_mamba_heads {} does not divide the {} mixer channels", d.mamba_heads, d.inner));
  return out;
}

Value mamba_block(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const Dims& d) {
  auto h = norm(b, x, BlockNames{i}.norm(1, NormKind::RMSNorm), {l / "input_layernorm", NormKind::RMSNorm});
  h = mixer(b, h, i, l / "mamba", d);
  return add(b, h, x, BlockNames{i}.add(1));
}

// The shared transformer block at layer i; its tensors alias those at layer `owner_layer` unless i is it.
Value shared_block(GraphBuilder& b, const Value& x, const Value& embeddings, std::int64_t i, const Scope& root,
                   std::int64_t owner_layer, const Dims& d, double attention_dropout) {
  const Scope st = root / "layers" / i / "shared_transf";
  const Scope owner = root / "layers" / owner_layer / "shared_transf";
  auto declare = [&](const Value& node, const Scope& module, std::string_view leaf, graph::Shape shape,
                     graph::TensorRole role, graph::Operand operand = graph::Operand::Input) {
    const std::string rel = module.path().substr(st.path().size());
    if (i == owner_layer)
      b.parameter(node, module(leaf), std::move(shape), role, operand);
    else
      b.tied(node, module(leaf), std::move(shape), Scope(owner.path() + rel)(leaf), role, operand);
  };
  const std::int64_t seq = x.shape.front();
  auto n1 = b.node(NodeType::RMSNorm, fmt::format("Shared_RMSNorm_{}_1", i), {seq, d.attention_hidden},
                   {x, embeddings}, st / "input_layernorm");
  declare(n1, st / "input_layernorm", "weight", {d.attention_hidden}, graph::TensorRole::Norm);
  if (x.shape.back() + embeddings.shape.back() != d.attention_hidden)
    b.fail(n1, fmt::format("the hidden state and embeddings concatenate to {} channels, but attention_hidden_size is "
                           "{}",
                           x.shape.back() + embeddings.shape.back(), d.attention_hidden));

  const Scope attn = st / "self_attn";
  const auto type = d.kv_heads == d.heads ? NodeType::MultiHeadAttention
                    : d.kv_heads == 1     ? NodeType::MultiQueryAttention
                                          : NodeType::GroupedQueryAttention;
  auto a = b.node(type, BlockNames{i}.attention(), {seq, d.hidden}, {n1}, attn);
  b.at(a).attention = graph::AttentionAttrs{.heads = d.heads, .kv_heads = d.kv_heads, .head_dim = d.head_dim,
                                            .query_len = seq, .kv_len = seq, .causal = true,
                                            .dropout = attention_dropout};
  declare(a, attn / "q_proj", "weight", {d.heads * d.head_dim, d.attention_hidden}, graph::TensorRole::Linear);
  declare(a, attn / "k_proj", "weight", {d.kv_heads * d.head_dim, d.attention_hidden}, graph::TensorRole::Linear);
  declare(a, attn / "v_proj", "weight", {d.kv_heads * d.head_dim, d.attention_hidden}, graph::TensorRole::Linear);
  declare(a, attn / "o_proj", "weight", {d.hidden, d.heads * d.head_dim}, graph::TensorRole::Linear,
          graph::Operand::Inner);
  if (d.kv_heads <= 0 || d.heads % d.kv_heads != 0)
    b.fail(a, fmt::format("{} KV heads do not divide {} query heads", d.kv_heads, d.heads));

  auto n2 = b.node(NodeType::RMSNorm, fmt::format("Shared_RMSNorm_{}_2", i), a.shape, {a}, st / "pre_ff_layernorm");
  declare(n2, st / "pre_ff_layernorm", "weight", {d.hidden}, graph::TensorRole::Norm);
  const Scope ff = st / "feed_forward";
  auto f = b.node(NodeType::GatedFeedForward, BlockNames{i}.ffn(), n2.shape, {n2}, ff);
  b.at(f).feed_forward = graph::FeedForwardAttrs{d.hidden, d.intermediate, d.activation, true};
  declare(f, ff / "gate_proj", "weight", {d.intermediate, d.hidden}, graph::TensorRole::Linear);
  declare(f, ff / "up_proj", "weight", {d.intermediate, d.hidden}, graph::TensorRole::Linear);
  declare(f, ff / "down_proj", "weight", {d.hidden, d.intermediate}, graph::TensorRole::Linear, graph::Operand::Inner);
  return f;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  Dims d{};
  d.vocab = c.dim({"vocab_size"}, 32000);
  d.hidden = c.dim({"hidden_size"}, 3712);
  d.intermediate = c.dim({"intermediate_size"}, 4 * d.hidden);
  d.layers = c.dim({"num_hidden_layers"}, 76);
  d.heads = c.dim({"num_attention_heads"}, 16);
  d.kv_heads = c.dim({"num_key_value_heads"}, d.heads);
  d.attention_hidden = c.dim({"attention_hidden_size"}, 2 * d.hidden);
  d.head_dim = c.dim({"attention_head_dim"}, 2 * d.hidden / d.heads);
  d.positions = c.dim({"max_position_embeddings"}, 4096);
  d.activation = c.text({"hidden_act"}, "gelu");
  d.inner = static_cast<std::int64_t>(c.number({"mamba_expand"}, 2) * static_cast<double>(d.hidden));
  d.state = c.dim({"mamba_d_state"}, 16);
  d.conv_kernel = c.dim({"mamba_d_conv"}, 4);
  const auto* rank = c.raw({"mamba_dt_rank"});
  d.dt_rank = !rank || rank->is_string() ? (d.hidden + 15) / 16 : c.dim({"mamba_dt_rank"});
  d.mamba_heads = c.dim({"n_mamba_heads"}, 2);
  d.conv_bias = c.flag({"mamba_conv_bias"}, true);
  d.proj_bias = c.flag({"mamba_proj_bias"}, false);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const auto types = block_types(c, d.layers);
  // save_pretrained walks each shared storage's names in sorted (string) order and drops those matching
  // _tied_weights_keys, which list every hybrid layer's copy, while another name remains: the copy kept is the
  // last in string order ("layers.7." sorts after "layers.73.").
  std::int64_t kept = -1;
  for (std::int64_t i = 0; i < d.layers; ++i)
    if (types[static_cast<std::size_t>(i)] == "hybrid" &&
        (kept < 0 || std::to_string(i) + "." > std::to_string(kept) + "."))
      kept = i;

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const std::int64_t seq = in.sequence_length(d.positions);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embed_tokens", d.vocab, d.hidden);
  if (seq > d.positions)
    b.note(fmt::format("sequence of {} tokens is past max_position_embeddings ({}); Zamba has no position encoding "
                       "to run out of",
                       seq, d.positions));
  const Value embeddings = x;

  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const std::string& type = types[static_cast<std::size_t>(i)];
    if (type == "hybrid") {
      auto t = shared_block(b, x, embeddings, i, root, kept, d, attention_dropout);
      t = dense(b, t, fmt::format("Hybrid_Linear_{}", i), l / "linear", d.hidden, d.hidden, false);
      x = add(b, t, x, fmt::format("Hybrid_Add_{}", i));
      x = mamba_block(b, x, i, l / "mamba_decoder", d);
    } else {
      x = mamba_block(b, x, i, l, d);
      if (type != "mamba") b.fail(x, fmt::format("layers_block_type[{}] is '{}', neither mamba nor hybrid", i, type));
    }
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "final_layernorm", NormKind::RMSNorm});

  const std::string tied = c.flag({"tie_word_embeddings"}, true) ? (root / "embed_tokens")("weight") : "";
  return decoder_heads(b, x, in, {.hidden = d.hidden, .vocab = d.vocab, .tied_embedding = tied});
}

}  // namespace
}  // namespace zamba_impl

const Family& zamba_family() {
  static const Family family{"zamba", "models/zamba/modeling_zamba.py",
                             classes("Zamba", {heads::ForCausalLM, heads::ForSequenceClassification}), zamba_impl::build};
  return family;
}

}  // namespace neurarch::families
