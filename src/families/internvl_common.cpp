#include "families/internvl_common.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::internvl {

using namespace blocks;
using graph::NodeType;

Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 1024);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 4096);
  const std::string activation = c.text({"hidden_act"}, "gelu");
  const bool attention_bias = c.flag({"attention_bias"}, false);
  const bool qk_norm = c.flag({"use_qk_norm"}, false);
  const std::string norm_type = c.text({"norm_type"}, "layer_norm");
  if (norm_type != "layer_norm" && norm_type != "rms_norm")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'norm_type'",
                fmt::format("expected \"layer_norm\" or \"rms_norm\", found \"{}\"", norm_type));
  const NormKind kind = norm_type == "rms_norm" ? NormKind::RMSNorm : NormKind::LayerNorm;
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const double projection_dropout = c.number({"projection_dropout"}, 0.0);

  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {448, 448, true}, 14);
  const Scope emb("embeddings");
  Tower t;
  t.hidden = hidden;
  t.grid_h = g.input.h / g.patch.h;
  t.grid_w = g.input.w / g.patch.w;
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  t.input = Value{b.at(x).inputs.front(), b.graph().nodes[static_cast<std::size_t>(b.at(x).inputs.front())].out};
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (c.flag({"use_mask_token"}, false)) b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  // Another image size resizes the grid's positions bicubically: any size runs.
  if (c.flag({"use_absolute_position_embeddings"}, true)) {
    x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);
    const bool resized = g.input_differs() || g.input.h != g.input.w;
    if (resized && g.configured.h / g.patch.h != g.configured.w / g.patch.w)
      b.fail(x, fmt::format("a {}x{} image resizes the positions, which needs a square table of patches; image_size "
                            "{}x{} is not",
                            g.input.h, g.input.w, g.configured.h, g.configured.w));
  }
  b.at(x).dropout = hidden_dropout;

  t.hidden_states.push_back(x);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("encoder") / "layer" / i;
    const Scope attn = l / "attention";
    const Scope mlp = l / "mlp";
    const BlockNames names{i};
    auto h = norm(b, x, names.norm(1, kind), {l / "layernorm_before", kind});
    h = attention(b, h, names.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                   .v = attn / "v_proj", .o = attn / "projection_layer", .qkv_bias = attention_bias,
                   .dropout = attention_dropout, .output_dropout = projection_dropout});
    if (qk_norm) {
      b.parameter(h, (attn / "q_norm")("weight"), {hidden}, graph::TensorRole::Norm);
      b.parameter(h, (attn / "k_norm")("weight"), {hidden}, graph::TensorRole::Norm);
    }
    h = layer_scale(b, h, names.scale(1), l("lambda_1"));
    x = add(b, h, x, names.add(1));
    h = norm(b, x, names.norm(2, kind), {l / "layernorm_after", kind});
    h = feed_forward(b, h, names.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = mlp,
                      .up = mlp / "fc1", .down = mlp / "fc2", .output_dropout = hidden_dropout});
    h = layer_scale(b, h, names.scale(2), l("lambda_2"));
    x = add(b, h, x, names.add(2));
    t.hidden_states.push_back(x);
  }
  b.set_block(-1);
  // The pooled output is the patches' mean, taken outside the tower; without it the tower ends in a LayerNorm.
  if (!c.flag({"use_mean_pooling"}, true)) x = norm(b, x, "Final_LayerNorm", {Scope("layernorm")});
  t.sequence = x;
  return t;
}

}  // namespace neurarch::families::internvl
