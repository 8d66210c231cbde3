// X-CLIP (models/x_clip/modeling_x_clip.py, transformers 5.24.0; the shared fixture is 4.47.1): CLIP for video.
// The text tower is CLIP's (clip_common.hpp). The vision tower is CLIP's ViT run over the num_frames frames of a
// clip at once, with cross-frame communication: before every layer each frame's class token goes through
// message_fc, a message_ln + message_attn attention across the frames (a residual), and joins its frame's sequence
// as one extra token for that layer's self-attention only. Its pooled, projected class tokens go through the
// multi-frame integration transformer (mit: learned frame positions, CLIP encoder layers of mit_* sizes, a
// residual, the mean over frames). The prompt generator lets the text embedding attend to the frames' mean patch
// features (prompts_visual_layernorm, the prompts_visual_projection matrix, `layernorm`) through prompt_layers
// pre-norm cross-attention layers, scaled by `alpha`, before the scaled cosine logits.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/xclip_common.hpp"

namespace neurarch::families {
namespace xclip_impl {
namespace {

using namespace blocks;
using graph::NodeType;
using xclip::TowerDims;
using xclip::mlp_spec;
using xclip::self_attention_spec;

// XCLIPMultiframeIntegrationTransformer over the frames' projected class tokens [frames, hidden]: frame positions,
// CLIP's (bidirectional) encoder layers, the input added back, the mean over frames.
Value integrate_frames(GraphBuilder& b, const Value& frames_in, const Scope& root, const TowerDims& d,
                       std::int64_t frames) {
  auto x = b.node(NodeType::LearnedPosEmbed, "Frame_Pos_Embed", frames_in.shape, {frames_in}, root);
  b.parameter(x, root("position_embedding"), {1, frames, d.hidden}, graph::TensorRole::Embedding);
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layers" / i;
    PreNormLayer layer;
    layer.norm1 = {l / "layer_norm1"};
    layer.attention = self_attention_spec(l / "self_attn", d);
    layer.norm2 = {l / "layer_norm2"};
    layer.ffn = mlp_spec(l / "mlp", d);
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  auto out = add(b, x, frames_in, "Integration_Residual_Add");
  return b.node(NodeType::Pooler, "Frame_Mean_Pool", {d.hidden}, {out});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 512);
  const std::int64_t frames = vision_config.dim({"num_frames"}, 8);
  const TowerDims vision = xclip::vision_dims(vision_config);
  const TowerDims mit{vision_config.dim({"mit_hidden_size"}, 512), vision_config.dim({"mit_intermediate_size"}, 2048),
                      vision_config.dim({"mit_num_hidden_layers"}, 1),
                      vision_config.dim({"mit_num_attention_heads"}, 8), vision.activation, vision.attention_dropout};

  Value text_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto t = clip::text_tower(in, b, text_config, clip::Variant::Clip, Scope("text_model"));
    // The EOS token's state, projected without bias.
    text_embeds = b.node(NodeType::Pooler, "Projection", {1, projection}, {t.sequence}, Scope("text_projection"));
    linear_tensors(b, text_embeds, Scope("text_projection"), t.hidden, projection, false);
  }
  Value sequence, pooled, patch_features;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    sequence = xclip::vision_tower(in, b, vision_config, Scope("vision_model"), vision, frames, pooled);
  }
  Value video_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "MIT_", .first_block = b.next_block()});
    auto projected =
        dense(b, pooled, "Visual_Projection", Scope("visual_projection"), vision.hidden, projection, false);
    video_embeds = integrate_frames(b, projected, Scope("mit"), mit, frames);
    if (projection != mit.hidden)
      b.fail(video_embeds, fmt::format("the frames' embeddings are projection_dim {} wide but the integration "
                                       "transformer's positions mit_hidden_size {}",
                                       projection, mit.hidden));
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Prompt_", .first_block = b.next_block()});
    // Patch features (class token dropped) of every frame, normed, projected by a plain matrix, averaged over frames.
    const std::int64_t patches = sequence.shape[1] - 1;
    auto f = norm(b, Value{sequence.node, {frames, patches, vision.hidden}}, "Prompts_Visual_LayerNorm",
                  {Scope("prompts_visual_layernorm")});
    f = b.node(NodeType::Linear, "Prompts_Visual_Projection", {frames, patches, projection}, {f});
    b.parameter(f, "prompts_visual_projection", {vision.hidden, projection}, graph::TensorRole::Other);
    auto visual = b.node(NodeType::Pooler, "Frame_Mean", {patches, projection}, {f});

    // XCLIPPromptGenerator: `layernorm` on the visual side, then pre-norm layers of cross-attention and MLP.
    const Scope gen("prompts_generator");
    visual = norm(b, visual, "Visual_LayerNorm", {gen / "layernorm"});
    const std::int64_t layers = c.dim({"prompt_layers"}, 2);
    const std::int64_t heads = c.dim({"prompt_num_attention_heads"}, 8);
    const double attention_dropout = c.number({"prompt_attention_dropout"}, 0.0);
    const double projection_dropout = c.number({"prompt_projection_dropout"}, 0.0);
    const std::string act = c.text({"prompt_hidden_act"}, "quick_gelu");
    Value prompt = text_embeds;
    for (std::int64_t i = 0; i < layers; ++i) {
      b.set_block(static_cast<int>(i));
      const Scope l = gen / "decoder" / i;
      const BlockNames n{i};
      const Scope a = l / "cross_attn";
      auto h = norm(b, prompt, n.norm(1, NormKind::LayerNorm), {l / "norm1"});
      h = cross_attention(b, h, visual, n.attention(),
                          AttentionSpec{.hidden = projection, .heads = heads, .module = a, .q = a / "q_proj",
                                        .k = a / "k_proj", .v = a / "v_proj", .o = a / "proj", .qkv_bias = false,
                                        .dropout = attention_dropout, .output_dropout = projection_dropout});
      prompt = add(b, h, prompt, n.add(1));
      const Scope mlp = l / "mlp";
      h = norm(b, prompt, n.norm(2, NormKind::LayerNorm), {l / "norm3"});
      h = feed_forward(b, h, n.ffn(),
                       {.hidden = projection, .intermediate = 4 * projection, .activation = act, .module = mlp,
                        .up = mlp / "0", .down = mlp / "3", .inner_dropout = attention_dropout});
      prompt = add(b, h, prompt, n.add(2));
    }
    b.set_block(-1);
    auto scaled = b.node(NodeType::LayerScale, "Prompt_Alpha", prompt.shape, {prompt}, gen);
    b.parameter(scaled, gen("alpha"), {projection}, graph::TensorRole::Other);
    text_embeds = add(b, scaled, text_embeds, "Prompt_Add");
  }
  return clip::contrastive_logits(b, Value{text_embeds.node, {projection}}, video_embeds, {}, false);
}

}  // namespace
}  // namespace xclip_impl

const Family& xclip_family() {
  static const Family family{"xclip", "models/x_clip/modeling_x_clip.py", classes("XCLIP"), xclip_impl::build};
  return family;
}

}  // namespace neurarch::families
