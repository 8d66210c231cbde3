// V-JEPA 2 (models/vjepa2/modeling_vjepa2.py + configuration_vjepa2.py, transformers 4.57.6): VJEPA2Model runs a
// video encoder and the JEPA predictor. The encoder: a Conv3d tubelet stem (tubelet_size x patch x patch, no
// position table: 3-D rotary positions rotate q and k), pre-norm layers (norm1, attention.query/key/value/proj,
// norm2, mlp.fc1/fc2 of hidden x mlp_ratio) and `layernorm`. The predictor projects the context tokens to
// pred_hidden_size (predictor_embeddings), appends one learned mask token (of pred_num_mask_tokens) per target
// token, runs its own pre-norm layers and `layernorm`, and projects the targets back to hidden_size (`proj`). With
// no masks given the reference takes every token as context and as target: the predictor sees twice the tokens.
// The clip is frames_per_clip frames of crop_size px (--image-size sets the frame side).
#include <cmath>

#include "families/video_common.hpp"

namespace neurarch::families {
namespace vjepa2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Stack {
  std::int64_t hidden = 0, layers = 0, heads = 0, intermediate = 0;
};

Value layers(GraphBuilder& b, Value x, const Stack& s, const Scope& list, const std::string& activation,
             bool qkv_bias, double attention_dropout, std::int64_t first_block) {
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const Scope l = list / i;
    const Scope attn = l / "attention";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1.module = l / "norm1";
    layer.attention = {.hidden = s.hidden, .heads = s.heads, .module = attn, .q = attn / "query", .k = attn / "key",
                       .v = attn / "value", .o = attn / "proj", .qkv_bias = qkv_bias, .dropout = attention_dropout,
                       .rotary = true};
    layer.norm2.module = l / "norm2";
    layer.ffn = {.hidden = s.hidden, .intermediate = s.intermediate, .activation = activation, .module = mlp,
                 .up = mlp / "fc1", .down = mlp / "fc2"};
    b.set_block(static_cast<int>(first_block + i));
    x = pre_norm_layer(b, x, first_block + i, layer);
  }
  b.set_block(-1);
  return x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  video::Clip clip{.frames = c.dim({"frames_per_clip"}, 64), .channels = c.dim({"in_chans"}, 3),
                   .configured_image = c.dim({"crop_size"}, 256)};
  clip.image = in.image_size(clip.configured_image);
  const video::Tubelet tubelet{c.dim({"tubelet_size"}, 2), patch, patch};
  const std::string activation = c.text({"hidden_act"}, "gelu");
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0);
  Stack enc{.hidden = c.dim({"hidden_size"}, 1024), .layers = c.dim({"num_hidden_layers"}, 24),
            .heads = c.dim({"num_attention_heads"}, 16)};
  enc.intermediate = static_cast<std::int64_t>(static_cast<double>(enc.hidden) * c.number({"mlp_ratio"}, 4.0));
  Stack pred{.hidden = c.dim({"pred_hidden_size"}, 384), .layers = c.dim({"pred_num_hidden_layers"}, 12),
             .heads = c.dim({"pred_num_attention_heads"}, 12)};
  pred.intermediate =
      static_cast<std::int64_t>(static_cast<double>(pred.hidden) * c.number({"pred_mlp_ratio"}, 4.0));
  const std::int64_t mask_tokens = c.dim({"pred_num_mask_tokens"}, 10);

  const Scope encoder("encoder");
  auto x = video::tubelet_stem(b, clip, tubelet, encoder / "embeddings" / "patch_embeddings" / "proj", enc.hidden, 0);
  x = layers(b, x, enc, encoder / "layer", activation, qkv_bias, attention_dropout, 0);
  x = norm(b, x, "Encoder_LayerNorm", {encoder / "layernorm"});
  const std::int64_t tokens = x.shape.front();

  const Scope predictor("predictor");
  const Scope embeddings = predictor / "embeddings";
  auto context = dense(b, x, "Predictor_Embeddings", embeddings / "predictor_embeddings", enc.hidden, pred.hidden, true);
  // The context tokens followed by one mask token per target: every token is both by default.
  auto h = b.node(NodeType::LearnedPosEmbed, "Predictor_Mask_Tokens", {2 * tokens, pred.hidden}, {context}, embeddings);
  b.parameter(h, embeddings("mask_tokens"), {mask_tokens, 1, 1, pred.hidden}, graph::TensorRole::Embedding);
  h = layers(b, h, pred, predictor / "layer", activation, qkv_bias, attention_dropout, enc.layers);
  h = norm(b, h, "Predictor_LayerNorm", {predictor / "layernorm"});
  // Only the targets are projected back to the encoder's width.
  return dense(b, Value{h.node, {tokens, pred.hidden}}, "Predictor_Proj", predictor / "proj", pred.hidden, enc.hidden,
               true);
}

}  // namespace
}  // namespace vjepa2_impl

const Family& vjepa2_family() {
  static const Family family{"vjepa2", "models/vjepa2/modeling_vjepa2.py", {{"VJEPA2Model", Head::Base}}, vjepa2_impl::build};
  return family;
}

}  // namespace neurarch::families
