// Kosmos-2 (models/kosmos2/modeling_kosmos2.py + configuration_kosmos2.py, transformers 4.47.1): a CLIP-layout
// vision model (`vision_model.model`, Kosmos2VisionConfig: 1024 wide, 24 layers, patch 14) whose whole last
// hidden state Kosmos2Model passes through post_layernorm; `image_to_text_projection`: a Linear to the text width,
// then latent_query_num learned `latent_query` rows cross-attend (x_attn, no inner LayerNorm) to the projected
// patches followed by the latents themselves; the latent outputs replace the prompt's image positions
// (image_embeds_position_mask). The text model (`text_model.model`) is an XGLM-like pre-norm decoder (sinusoidal
// positions in a non-persistent buffer, embeddings scaled by sqrt(embed_dim)) with a sub-LayerNorm before
// out_proj (`self_attn.inner_attn_ln`) and one before fc2 (`ffn.ffn_layernorm`); attention is eager only.
// Kosmos2ForConditionalGeneration adds `text_model.lm_head`, tied to the token embeddings by default.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/kosmos_2.hpp"
#include "families/llama_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace kosmos2 {

using namespace blocks;

decoder::DecoderSpec text_spec(const Config& c, const TextDefaults& d) {
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, d.vocab);
  s.hidden = c.dim({"embed_dim"}, d.hidden);
  s.layers = c.dim({"layers"}, d.layers);
  s.heads = c.dim({"attention_heads"}, d.heads);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.intermediate = c.dim({"ffn_dim"}, d.intermediate);
  s.positions = c.dim({"max_position_embeddings"}, d.positions);
  s.activation = c.text({"activation_function"}, "gelu");
  s.gated = false;
  s.rotary = false;
  s.eager_only = !d.sdpa;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.o_bias = true;
  s.attention_dropout = c.number({"attention_dropout"}, d.attention_dropout);
  s.residual_dropout = c.number({"dropout"}, 0.1);
  s.norm = NormKind::LayerNorm;
  s.norm_bias = true;
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  s.names.pre_attn_norm = "self_attn_layer_norm";
  s.names.pre_ffn_norm = "final_layer_norm";
  s.names.final_norm = "layer_norm";
  s.attention_override = [hidden = s.hidden, heads = s.heads, dropout = s.attention_dropout,
                          residual = s.residual_dropout, sdpa = d.sdpa,
                          sub_norm = d.attention_sub_norm](GraphBuilder& gb, const Value& x, std::int64_t i,
                                                           const Scope& layer) {
    const Scope attn = layer / "self_attn";
    auto h = attention(gb, x, BlockNames{i}.attention(),
                       {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .q = attn / "q_proj",
                        .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj", .dropout = dropout,
                        .output_dropout = residual});
    gb.at(h).attention->sdpa = sdpa;
    if (sub_norm) {
      // The sub-LayerNorm over the heads' concatenated outputs, before out_proj.
      gb.parameter(h, (attn / "inner_attn_ln")("weight"), {hidden}, graph::TensorRole::Norm);
      gb.parameter(h, (attn / "inner_attn_ln")("bias"), {hidden}, graph::TensorRole::Bias);
    }
    return h;
  };
  const double activation_dropout = c.number({"activation_dropout"}, 0.0);
  s.mlp_override = [hidden = s.hidden, width = s.intermediate, act = s.activation, activation_dropout,
                    residual = s.residual_dropout](GraphBuilder& gb, const Value& x, std::int64_t i,
                                                   const Scope& layer) {
    const Scope ffn = layer / "ffn";
    auto h = feed_forward(gb, x, BlockNames{i}.ffn(),
                          {.hidden = hidden, .intermediate = width, .activation = act, .module = ffn,
                           .up = ffn / "fc1", .down = ffn / "fc2", .output_dropout = residual,
                           .inner_dropout = activation_dropout});
    // The sub-LayerNorm over the activated intermediate, before fc2.
    gb.parameter(h, (ffn / "ffn_layernorm")("weight"), {width}, graph::TensorRole::Norm);
    gb.parameter(h, (ffn / "ffn_layernorm")("bias"), {width}, graph::TensorRole::Bias);
    return h;
  };
  return s;
}

Value image_to_text(GraphBuilder& b, const Value& image, const Config& c, const Config& text, std::int64_t width,
                    const TextDefaults& d) {
  const Scope root("image_to_text_projection");
  const std::int64_t latents = c.dim({"latent_query_num"}, d.latent_queries);
  const std::int64_t heads = text.dim({"attention_heads"}, d.heads);
  const std::int64_t patches = image.shape[image.shape.size() - 2];
  auto projected = dense(b, image, "Projection_Dense", root / "dense", image.shape.back(), width, true);
  auto queries = b.node(graph::NodeType::Embedding, "Latent_Query", {latents, width}, {});
  b.parameter(queries, root("latent_query"), {latents, width}, graph::TensorRole::Other);
  // Keys and values read the projected patches followed by the latent queries.
  const Value memory{projected.node, {patches + latents, width}};
  const Scope attn = root / "x_attn";
  auto out = cross_attention(b, queries, memory, "Projection_Cross_Attention",
                             {.hidden = width, .heads = heads, .module = attn, .q = attn / "q_proj",
                              .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                              .dropout = text.number({"attention_dropout"}, d.attention_dropout)});
  b.at(out).attention->sdpa = d.sdpa;
  return out;
}

Value text_model(const BuildInput& in, GraphBuilder& b, const Config& text, const decoder::DecoderSpec& spec) {
  // The text model and its causal-LM class both keep the transformer under `model`.
  const bool lm = in.head == Head::CausalLM;
  graph::Nested nest(b, {.module = lm ? "text_model" : "text_model.model", .label = "", .first_block = b.next_block()});
  const BuildInput sub{text, in.class_name, lm ? Head::CausalLM : Head::Base, in.requested_seq,
                       in.requested_image_size};
  return decoder::build_decoder(sub, b, spec);
}

}  // namespace kosmos2

namespace kosmos_2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const kosmos2::TextDefaults defaults;
  const decoder::DecoderSpec spec = kosmos2::text_spec(text_config, defaults);

  clip::Tower tower;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
    tower = clip::clip_layout_vision_tower(
        in, b, vision_config, Scope("vision_model") / "model",
        {.hidden = 1024, .intermediate = 4096, .layers = 24, .heads = 16, .image_size = 224, .patch = 14});
  }
  const Value features = kosmos2::image_to_text(b, tower.sequence, c, text_config, spec.hidden, defaults);

  const Value out = kosmos2::text_model(in, b, text_config, spec);
  multimodal::scatter_image_features(b, features);
  return out;
}

}  // namespace
}  // namespace kosmos_2_impl

const Family& kosmos_2_family() {
  static const Family family{"kosmos-2", "models/kosmos2/modeling_kosmos2.py",
                             classes("Kosmos2", {heads::VisionLanguageGeneration}), kosmos_2_impl::build};
  return family;
}

}  // namespace neurarch::families
