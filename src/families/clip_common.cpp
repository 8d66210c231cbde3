#include "families/clip_common.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::clip {

using namespace blocks;
using graph::NodeType;

namespace clip_common_impl {
namespace {

// One tower's encoder sizes, read with the reference's defaults for that tower.
struct Dims {
  std::int64_t hidden, intermediate, layers, heads;
  std::string activation;
  double attention_dropout = 0.0;
};

Dims read_dims(const Config& c, const Dims& defaults) {
  return {c.dim({"hidden_size"}, defaults.hidden), c.dim({"intermediate_size"}, defaults.intermediate),
          c.dim({"num_hidden_layers"}, defaults.layers), c.dim({"num_attention_heads"}, defaults.heads),
          c.text({"hidden_act"}, defaults.activation), c.number({"attention_dropout"}, 0.0)};
}

// CLIPEncoder / SiglipEncoder: pre-norm layers; returns hidden_states (the input, then every layer's output).
std::vector<Value> encoder(GraphBuilder& b, Value x, const Scope& layers, const Dims& d, bool causal) {
  std::vector<Value> states{x};
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = layers / i;
    const Scope attn = l / "self_attn";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "layer_norm1"};
    layer.attention = {.hidden = d.hidden, .heads = d.heads, .causal = causal, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                       .dropout = d.attention_dropout};
    layer.norm2 = {l / "layer_norm2"};
    layer.ffn = {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .module = mlp,
                 .up = mlp / "fc1", .down = mlp / "fc2"};
    x = pre_norm_layer(b, x, i, layer);
    states.push_back(x);
  }
  b.set_block(-1);
  return states;
}

// SiglipMultiheadAttentionPoolingHead: a learned probe attends over the sequence (nn.MultiheadAttention,
// fused in_proj), then a residual MLP over the one pooled token.
Value attention_pooling(GraphBuilder& b, const Value& x, const Scope& head, const Dims& d, std::int64_t crops) {
  const Scope attn = head / "attention";
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  graph::Shape probe{1, d.hidden};
  if (crops > 1) probe.insert(probe.begin(), crops);
  auto pooled = b.node(NodeType::MultiHeadAttention, "Head_Attention", probe, {x}, attn);
  b.at(pooled).attention = graph::AttentionAttrs{d.heads, d.heads, d.hidden / d.heads, 1, seq, false, 0, 0.0, false,
                                                 true};
  b.parameter(pooled, head("probe"), {1, 1, d.hidden}, graph::TensorRole::Other);
  b.parameter(pooled, attn("in_proj_weight"), {3 * d.hidden, d.hidden}, graph::TensorRole::Matrix);
  b.parameter(pooled, attn("in_proj_bias"), {3 * d.hidden}, graph::TensorRole::Bias);
  linear_tensors(b, pooled, attn / "out_proj", d.hidden, d.hidden, true, graph::Operand::Inner);
  if (d.hidden % d.heads != 0)
    b.fail(pooled, fmt::format("hidden size {} not divisible by {} heads", d.hidden, d.heads));
  auto h = norm(b, pooled, "Head_LayerNorm", {head / "layernorm"});
  const Scope mlp = head / "mlp";
  h = feed_forward(b, h, "Head_MLP",
                   {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .module = mlp,
                    .up = mlp / "fc1", .down = mlp / "fc2"});
  auto out = add(b, h, pooled, "Head_Add");
  return Value{out.node, crops > 1 ? graph::Shape{crops, d.hidden} : graph::Shape{d.hidden}};
}

// Siglip2VisionEmbeddings: the processor cuts an image of any aspect into at most max_num_patches patches
// (--image-size S: (S / patch)^2 of them, else num_patches; --seq stays the text tower's) and pads the
// rest; each row of channels * patch^2 values goes through an nn.Linear; the position table, reshaped to
// its square grid, is resized to the image's grid and added, so any patch count runs.
Value naflex_stem(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& emb, std::int64_t hidden,
                  Value& input) {
  const std::int64_t table = c.dim({"num_patches"}, 256);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t side = in.requested_image_size.value_or(0) / patch;
  const std::int64_t patches = in.requested_image_size ? side * side : table;
  auto pixels = b.input({patches, channels * patch * patch}, "pixels");
  input = pixels;
  auto x = dense(b, pixels, "Patch_Embed", emb / "patch_embedding", channels * patch * patch, hidden, true);
  auto pos = b.node(NodeType::LearnedPosEmbed, "Resized_Pos_Embed", x.shape, {x}, emb / "position_embedding");
  b.parameter(pos, (emb / "position_embedding")("weight"), {table, hidden}, graph::TensorRole::Embedding);
  const auto grid = static_cast<std::int64_t>(std::sqrt(static_cast<double>(table)));
  if (patches < 1)
    b.fail(x, fmt::format("an image of {0}x{0} pixels holds no {1}x{1} patch", in.requested_image_size.value_or(0),
                          patch));
  else if (grid * grid != table)
    b.fail(pos, fmt::format("num_patches {} is not a square grid: the position table cannot be reshaped to resize it",
                            table));
  return pos;
}

}  // namespace
}  // namespace clip_common_impl
using namespace clip_common_impl;

Tower text_tower(const BuildInput& in, GraphBuilder& b, const Config& c, Variant v, const Scope& root,
                 const ClipDefaults& defaults) {
  const bool is_clip = v == Variant::Clip;
  const Dims d = read_dims(c, is_clip ? Dims{512, 2048, 12, 8, "quick_gelu"} : Dims{768, 3072, 12, 12, "gelu_pytorch_tanh"});
  const std::int64_t vocab = c.dim({"vocab_size"}, is_clip ? 49408 : 32000);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, is_clip ? defaults.text_positions : 64);
  const Scope emb = root / "embeddings";

  Tower t;
  t.hidden = d.hidden;
  t.layers = d.layers;
  t.input = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, t.input, "Token_Embed", emb / "token_embedding", vocab, d.hidden);
  x = learned_positions(b, x, "Learned_Pos_Embed", emb / "position_embedding", positions, d.hidden);
  // CLIP's text tower is causal; SigLIP's attends both ways.
  x = encoder(b, x, root / "encoder" / "layers", d, is_clip).back();
  x = norm(b, x, "Final_LayerNorm", {root / "final_layer_norm"});
  t.sequence = x;
  if (is_clip) {
    // pooler_output is the hidden state at the EOS token: a gather, no module.
    t.pooled = Value{x.node, {d.hidden}};
  } else {
    // The last token, through `head` (projection_size defaults to hidden_size).
    const std::int64_t projection = c.dim({"projection_size"}, d.hidden);
    auto head = b.node(NodeType::Pooler, "Text_Head", {projection}, {x}, root / "head");
    linear_tensors(b, head, root / "head", d.hidden, projection, true);
    t.pooled = head;
  }
  return t;
}

namespace clip_common_impl {
namespace {

// The tower of vision_tower with the config class's defaults: `defaults` (image geometry, names) and `dims`
// (widths and depth); `norm_sequence`: CLIP's post_layernorm runs over the whole sequence (GIT, Kosmos-2) rather
// than the class token.
Tower vision_tower_with(const BuildInput& in, GraphBuilder& b, const Config& c, Variant v, const Scope& root,
                        std::int64_t crops, const ClipDefaults& defaults, const NavitDefaults& dims,
                        bool norm_sequence) {
  const bool is_clip = v == Variant::Clip;
  const Dims d = read_dims(c, {dims.hidden, dims.intermediate, dims.layers, dims.heads,
                               is_clip ? "quick_gelu" : "gelu_pytorch_tanh"});
  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  // SigLIP 2's NaFlex stem has no image_size: the patch count stands for it.
  const vit::Geometry g = v == Variant::Siglip2 ? vit::Geometry{}
                          : is_clip ? vit::read_geometry(sub, {defaults.image_size, defaults.image_size, false},
                                                         defaults.patch)
                                    : vit::read_geometry(sub, {224, 224, false}, 16);
  const Scope emb = root / "embeddings";
  const Scope conv = emb / "patch_embedding";

  Tower t;
  t.hidden = d.hidden;
  t.layers = d.layers;
  auto batched = [crops](graph::Shape s) {
    if (crops > 1) s.insert(s.begin(), crops);
    return s;
  };
  Value x;
  if (v == Variant::Siglip2) {
    x = naflex_stem(in, b, c, emb, d.hidden, t.input);
  } else {
    // CLIP: a bias-free Conv2d and a class token in front of the patches; SigLIP: a Conv2d with bias.
    t.input = b.input(batched({g.channels, g.input.h, g.input.w}), "pixels");
    x = b.node(NodeType::PatchEmbed, "Patch_Embed", batched({(is_clip ? 1 : 0) + g.input_patches(), d.hidden}),
               {t.input}, conv);
    if (is_clip) b.parameter(x, emb("class_embedding"), {d.hidden}, graph::TensorRole::Embedding);
    b.parameter(x, conv("weight"), {d.hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
    if (!is_clip) b.parameter(x, conv("bias"), {d.hidden}, graph::TensorRole::Bias);
    if (g.input.h < g.patch.h || g.input.w < g.patch.w)
      b.fail(x, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
    // Both look their positions up by index for the configured grid and refuse another image size unless
    // forward() interpolates them.
    vit::refuse_other_sizes(b, x, g, is_clip ? "CLIP" : "SigLIP");
    auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb / "position_embedding");
    b.parameter(pos, (emb / "position_embedding")("weight"), {g.configured_patches() + (is_clip ? 1 : 0), d.hidden}, graph::TensorRole::Embedding);
    x = pos;
  }
  if (is_clip) x = norm(b, x, "Pre_LayerNorm", {root / std::string(defaults.pre_norm)});

  t.hidden_states = encoder(b, x, root / "encoder" / "layers", d, false);
  x = t.hidden_states.back();
  if (is_clip && norm_sequence) {
    t.sequence = norm(b, x, "Post_LayerNorm", {root / "post_layernorm"});
    t.pooled = Value{t.sequence.node, batched({d.hidden})};
    return t;
  }
  if (is_clip) {
    // last_hidden_state is the encoder's output; only the pooled class token is layer-normed.
    t.sequence = x;
    t.pooled = norm(b, Value{x.node, batched({d.hidden})}, "Post_LayerNorm", {root / "post_layernorm"});
    return t;
  }
  x = norm(b, x, "Post_LayerNorm", {root / "post_layernorm"});
  t.sequence = x;
  // Without the head, pooler_output is None; the sequence is what callers read.
  t.pooled = c.flag({"vision_use_head"}, true) ? attention_pooling(b, x, root / "head", d, crops)
                                                 : Value{x.node, batched({d.hidden})};
  return t;
}

}  // namespace
}  // namespace clip_common_impl
using namespace clip_common_impl;

Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, Variant v, const Scope& root,
                   std::int64_t crops, const ClipDefaults& defaults) {
  return clip_common_impl::vision_tower_with(in, b, c, v, root, crops, defaults, NavitDefaults{}, false);
}

Tower clip_layout_vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root,
                               const NavitDefaults& d, std::int64_t crops) {
  const std::size_t first = b.graph().nodes.size();
  const ClipDefaults geometry{.image_size = d.image_size, .patch = d.patch};
  Tower t = clip_common_impl::vision_tower_with(in, b, c, Variant::Clip, root, crops, geometry, d, true);
  // These copies of CLIP's attention predate its SDPA classes: only the eager path exists.
  for (std::size_t i = first; i < b.graph().nodes.size(); ++i)
    if (b.graph().nodes[i].attention) b.at(Value{static_cast<int>(i), {}}).attention->sdpa = false;
  return t;
}

Tower navit_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, const NavitDefaults& d) {
  const clip_common_impl::Dims dims = clip_common_impl::read_dims(c, {d.hidden, d.intermediate, d.layers, d.heads, "gelu_pytorch_tanh"});
  const std::int64_t configured = c.dim({"image_size"}, d.image_size);
  const std::int64_t patch = c.dim({"patch_size"}, d.patch);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t side = in.image_size(configured);
  const Scope emb = root / "embeddings";

  Tower t;
  t.hidden = dims.hidden;
  t.layers = dims.layers;
  t.input = b.input({channels, side, side}, "pixels");
  auto x = patch_embed(b, t.input, "Patch_Embed",
                       {.projection = emb / "patch_embedding", .channels = channels, .dim = dims.hidden, .patch = patch});
  // The table's rows are looked up by bucket, one per patch of this image: nothing is interpolated.
  auto pos = b.node(NodeType::LearnedPosEmbed, "Bucketed_Pos_Embed", x.shape, {x}, emb / "position_embedding");
  const std::int64_t table_side = configured / patch;
  b.parameter(pos, (emb / "position_embedding")("weight"), {table_side * table_side, dims.hidden}, graph::TensorRole::Embedding);
  if (table_side < 1)
    b.fail(pos, fmt::format("image_size {} holds no {}-pixel patch: the position table has no row", configured, patch));
  t.hidden_states = clip_common_impl::encoder(b, pos, root / "encoder" / "layers", dims, false);
  t.sequence = norm(b, t.hidden_states.back(), "Post_LayerNorm", {root / "post_layernorm"});
  return t;
}

Value clip_model(const BuildInput& in, GraphBuilder& b) { return clip_model(in, b, ClipDefaults{}); }

Value clip_model(const BuildInput& in, GraphBuilder& b, const ClipDefaults& defaults) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  if (in.head == Head::ImageClassification) {
    auto v = vision_tower(in, b, vision_config, Variant::Clip, Scope("vision_model"), 1, defaults);
    return classifier(b, Value{v.sequence.node, {v.hidden}}, "Classifier", Scope("classifier"), v.hidden,
                      in.num_labels(), true);
  }
  const std::int64_t projection = c.dim({"projection_dim"}, 512);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto t = text_tower(in, b, text_config, Variant::Clip, Scope("text_model"), defaults);
    // The EOS token's state, projected: a one-token gather and a bias-free linear.
    text_embeds = b.node(NodeType::Pooler, "Projection", {projection}, {t.sequence}, Scope("text_projection"));
    linear_tensors(b, text_embeds, Scope("text_projection"), t.hidden, projection, false);
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = vision_tower(in, b, vision_config, Variant::Clip, Scope("vision_model"), 1, defaults);
    image_embeds = dense(b, v.pooled, "Projection", Scope("visual_projection"), v.hidden, projection, false);
  }
  return contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

Value siglip_model(const BuildInput& in, GraphBuilder& b, Variant v) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  if (in.head == Head::ImageClassification) {
    auto t = vision_tower(in, b, vision_config, v, Scope("vision_model"));
    return classifier(b, Value{t.sequence.node, {t.hidden}}, "Classifier", Scope("classifier"), t.hidden,
                      in.num_labels(), true);
  }
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    text_embeds = text_tower(in, b, text_config, v, Scope("text_model")).pooled;
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    image_embeds = vision_tower(in, b, vision_config, v, Scope("vision_model")).pooled;
  }
  return contrastive_logits(b, text_embeds, image_embeds, {1}, true);
}

Value with_text_tower(const BuildInput& in, GraphBuilder& b, std::int64_t projection_default,
                      const std::function<Value()>& pooled_text) {
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, projection_default);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    text_embeds = pooled_text();
  }
  text_embeds = dense(b, text_embeds, "Text_Projection", Scope("text_projection"), text_embeds.shape.back(),
                      projection, false);
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = vision_tower(in, b, vision_config, Variant::Clip, Scope("vision_model"));
    image_embeds = dense(b, v.pooled, "Visual_Projection", Scope("visual_projection"), v.hidden, projection, false);
  }
  return contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

Value contrastive_logits(GraphBuilder& b, const Value& text, const Value& image, const graph::Shape& scale_shape,
                         bool bias, std::string_view scale) {
  // Per sample: one logit per (image, text) pair; a batch makes the B x B matrix.
  auto out = b.node(NodeType::ContrastiveLogits, "Contrastive_Logits", {1}, {image, text});
  b.parameter(out, std::string(scale), scale_shape, graph::TensorRole::Other);
  if (bias) b.parameter(out, "logit_bias", scale_shape, graph::TensorRole::Bias);
  if (text.shape.back() != image.shape.back())
    b.fail(out, fmt::format("text embeddings of width {} cannot be compared with image embeddings of width {}",
                            text.shape.back(), image.shape.back()));
  return out;
}

}  // namespace neurarch::families::clip
