// Gemma 4's vision tower (Gemma4VisionModel in models/gemma4/modeling_gemma4.py + configuration_gemma4.py,
// transformers 5.24.0), AutoModel's class for `gemma4_vision` and `vision_tower` of the whole model:
// - patch_embedder: the image processor hands over flattened patches [patches, 3 × patch_size²]; input_proj (no
//   bias) and a learned 2-D position table [2, position_embedding_size, hidden] (an x row plus a y row per patch);
// - encoder.layers: Gemma 3's decoder layer made bidirectional (modular_gemma4.py derives it from
//   Gemma3DecoderLayer / Gemma3Attention): four RMSNorms, per-head q/k norms, a scale-free v norm, 2-D axial
//   rotary positions, a gated gelu_pytorch_tanh MLP; every projection is a Gemma4ClippableLinear (its weight
//   under `.linear`, with use_clipped_linears four scalar clipping bounds saved beside it);
// - pooler: each pooling_kernel_size² block of patches averaged into one soft token, times sqrt(hidden);
//   with `standardize`, (x − std_bias) × std_scale, two persistent [hidden] buffers.
// The rotary inverse frequencies are non-persistent buffers: nothing is saved for them.
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/gemma4_towers.hpp"

namespace neurarch::families {
namespace gemma4 {

using namespace blocks;
using graph::NodeType;

void clipping_bounds(GraphBuilder& b, const Value& owner, const Scope& module, bool clipped) {
  if (!clipped) return;
  // torch.tensor(±inf) at construction: the default dtype, which from_config sets to the model's.
  for (const char* bound : {"input_min", "input_max", "output_min", "output_max"})
    b.buffer(owner, module(bound), {}, b.param_dtype());
}

Value clippable_linear(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                       std::int64_t in, std::int64_t out, bool clipped, const std::string& activation) {
  auto h = dense(b, x, name, module / "linear", in, out, false, activation);
  clipping_bounds(b, h, module, clipped);
  return h;
}

Value embed(GraphBuilder& b, const Value& features, std::int64_t text_hidden, const Scope& module,
            const std::string& label) {
  // embedding_pre_projection_norm has with_scale=False: no weight.
  auto normed = b.node(NodeType::RMSNorm, label + "_Pre_Projection_RMSNorm", features.shape, {features},
                       module / "embedding_pre_projection_norm");
  return dense(b, normed, label + "_Projection", module / "embedding_projection", features.shape.back(),
               text_hidden, false);
}

namespace gemma4_vision_impl {
namespace {

struct VisionSpec {
  std::int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::int64_t patch = 0, positions = 0, pooling = 0;
  std::string activation;
  bool clipped = false, standardize = false;
};

VisionSpec read_spec(const Config& c) {
  VisionSpec s;
  s.hidden = c.dim({"hidden_size"}, 768);
  s.intermediate = c.dim({"intermediate_size"}, 3072);
  s.layers = c.dim({"num_hidden_layers"}, 16);
  s.heads = c.dim({"num_attention_heads"}, 12);
  s.kv_heads = c.dim({"num_key_value_heads"}, 12);
  s.head_dim = c.dim({"head_dim"}, 64);
  s.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  s.patch = c.dim({"patch_size"}, 16);
  s.positions = c.dim({"position_embedding_size"}, 10240);
  s.pooling = c.dim({"pooling_kernel_size"}, 3);
  s.clipped = c.flag({"use_clipped_linears"}, false);
  s.standardize = c.flag({"standardize"}, false);
  return s;
}

// Gemma3DecoderLayer's sandwich, bidirectional: norm, attention, norm, residual; norm, MLP, norm, residual.
Value encoder_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const VisionSpec& s) {
  const BlockNames names{i};
  auto rms = [&](const Value& v, int k, const char* module) {
    return norm(b, v, names.norm(k, NormKind::RMSNorm), {l / module, NormKind::RMSNorm, false});
  };
  const Scope attn = l / "self_attn";
  AttentionSpec a{.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                  .causal = false, .module = attn, .q = attn / "q_proj" / "linear", .k = attn / "k_proj" / "linear",
                  .v = attn / "v_proj" / "linear", .o = attn / "o_proj" / "linear", .qkv_bias = false,
                  .o_bias = false, .require_divisible = false, .rotary = true};
  auto h = attention(b, rms(x, 1, "input_layernorm"), names.attention(), a);
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"}) clipping_bounds(b, h, attn / p, s.clipped);
  // q_norm and k_norm over each head; v_norm has no scale.
  b.parameter(h, (attn / "q_norm")("weight"), {s.head_dim}, graph::TensorRole::Norm);
  b.parameter(h, (attn / "k_norm")("weight"), {s.head_dim}, graph::TensorRole::Norm);
  auto out = add(b, rms(h, 2, "post_attention_layernorm"), x, names.add(1));

  const Scope m = l / "mlp";
  auto f = feed_forward(b, rms(out, 3, "pre_feedforward_layernorm"), names.ffn(),
                        {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation,
                         .gated = true, .module = m, .up = m / "up_proj" / "linear", .down = m / "down_proj" / "linear",
                         .gate = m / "gate_proj" / "linear", .bias = false, .down_bias = false});
  for (const char* p : {"gate_proj", "up_proj", "down_proj"}) clipping_bounds(b, f, m / p, s.clipped);
  return add(b, rms(f, 4, "post_feedforward_layernorm"), out, names.add(2));
}

// The soft tokens laid out as the most nearly square grid (the image processor keeps the image's aspect ratio).
std::pair<std::int64_t, std::int64_t> token_grid(std::int64_t tokens) {
  auto rows = static_cast<std::int64_t>(std::sqrt(static_cast<double>(tokens)));
  while (rows > 1 && tokens % rows != 0) --rows;
  return {rows, rows > 0 ? tokens / rows : 0};
}

}  // namespace
}  // namespace gemma4_vision_impl
using namespace gemma4_vision_impl;

Value vision_tower(GraphBuilder& b, const Config& c, std::int64_t soft_tokens) {
  const VisionSpec s = gemma4_vision_impl::read_spec(c);
  const std::int64_t patches = soft_tokens * s.pooling * s.pooling;
  auto x = b.input({patches, 3 * s.patch * s.patch}, "pixels", "pixel_values");

  const Scope embedder("patch_embedder");
  x = dense(b, x, "Patch_Projection", embedder / "input_proj", 3 * s.patch * s.patch, s.hidden, false);
  // Two lookups (x and y) into one [2, position_embedding_size, hidden] table, summed and added.
  auto positions = b.node(NodeType::Embedding, "Patch_Position_Embedding", x.shape, {x}, embedder);
  b.parameter(positions, embedder("position_embedding_table"), {2, s.positions, s.hidden}, graph::TensorRole::Embedding);
  x = add(b, positions, x, "Patch_Embedding_Add");
  if (s.heads * s.head_dim <= 0)
    b.fail(positions, fmt::format("{} heads of width {} leave the attention empty", s.heads, s.head_dim));

  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = encoder_layer(b, x, i, Scope("encoder") / "layers" / i, s);
  }
  b.set_block(-1);

  // Each pooling_kernel_size x pooling_kernel_size block of patches is averaged into one soft token.
  const auto [rows, cols] = token_grid(soft_tokens);
  Value grid{x.node, {s.hidden, rows * s.pooling, cols * s.pooling}};
  auto pooled = s.pooling > 1 ? pool(b, grid, "Pooler_AvgPool", false, s.pooling, s.pooling) : grid;
  Value tokens{pooled.node, {soft_tokens, s.hidden}};
  if (s.standardize) {
    auto standardized = b.node(NodeType::LayerScale, "Pooler_Standardize", tokens.shape, {tokens});
    b.buffer(standardized, "std_bias", {s.hidden}, b.param_dtype());
    b.buffer(standardized, "std_scale", {s.hidden}, b.param_dtype());
    tokens = standardized;
  }
  return tokens;
}

}  // namespace gemma4

namespace gemma4_vision_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  // --seq sets the soft tokens per image (the processor's max_soft_tokens).
  return gemma4::vision_tower(b, in.config, in.requested_seq ? *in.requested_seq : gemma4::kDefaultImageTokens);
}

}  // namespace
}  // namespace gemma4_vision_impl

const Family& gemma4_vision_family() {
  static const Family family{"gemma4_vision", "models/gemma4/modeling_gemma4.py",
                             {{"Gemma4VisionModel", Head::Base}}, gemma4_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
