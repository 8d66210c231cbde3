// Idefics2 (models/idefics2/modeling_idefics2.py + configuration_idefics2.py, transformers 4.47.1): the NaViT-style
// SigLIP tower (clip_common.hpp, navit_tower) under `vision_model`; a `connector` whose modality_projection (a gated
// MLP, vision width -> text_config's intermediate_size -> text width, text_config's hidden_act, no biases) feeds a
// perceiver_resampler: resampler_n_latents learned `latents` cross-attend, layer after layer, to the projected
// patches concatenated with themselves (keys and values read context + latents), each layer pre-normed by RMSNorms
// (input_latents_norm, input_context_norm, post_attention_layernorm) with a gated MLP 4 x wide, then a final `norm`.
// Idefics2Config overwrites the perceiver's hidden_size with the text model's. The text model is text_config's base
// model (AutoModel: Mistral by default) under `text_model`; the head class adds `lm_head` beside `model`. The prompt
// holds resampler_n_latents image tokens per image; the image processor's default keeps an image whole (no
// splitting), at the tower's image_size unless --image-size says otherwise. The reference has no SDPA path: every
// attention, the text model's included, runs eager.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace idefics2_impl {
namespace {

using namespace blocks;

// Idefics2Config's text model when text_config is absent: MistralConfig with these overrides.
Config text_config_of(const Config& c) {
  return c.child("text_config", {{"model_type", "mistral"}, {"max_position_embeddings", 4096 * 8},
                                 {"rms_norm_eps", 1e-5}, {"pad_token_id", 0}, {"tie_word_embeddings", false}});
}

struct Perceiver {
  std::int64_t hidden = 0, latents = 0, depth = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::string activation;
  double attention_dropout = 0.0;
};

Perceiver read_perceiver(const Config& p, std::int64_t text_hidden) {
  return {.hidden = text_hidden,
          .latents = p.dim({"resampler_n_latents"}, 64),
          .depth = p.dim({"resampler_depth"}, 3),
          .heads = p.dim({"resampler_n_heads"}, 16),
          .kv_heads = p.dim({"num_key_value_heads"}, 4),
          .head_dim = p.dim({"resampler_head_dim"}, 96),
          .activation = p.text({"hidden_act"}, "silu"),
          .attention_dropout = p.number({"attention_dropout"}, 0.0)};
}

// Idefics2MLP from the tower's width to the text model's: down_proj(act(gate_proj(x)) * up_proj(x)), no biases,
// text_config's intermediate_size and hidden_act. A gated MLP whose output is not its input's width.
Value modality_projection(GraphBuilder& b, const Value& x, const Scope& module, const Config& text,
                          std::int64_t text_hidden) {
  const std::int64_t in = x.shape.back();
  const std::int64_t intermediate = text.dim({"intermediate_size"}, 14336);
  const std::string activation = text.text({"hidden_act"}, "silu");
  graph::Shape shape = x.shape;
  shape.back() = text_hidden;
  auto out = b.node(graph::NodeType::GatedFeedForward, "Modality_Projection", shape, {x}, module);
  b.at(out).feed_forward = graph::FeedForwardAttrs{in, intermediate, activation, true, 0.0};
  linear_tensors(b, out, module / "gate_proj", in, intermediate, false);
  linear_tensors(b, out, module / "up_proj", in, intermediate, false);
  linear_tensors(b, out, module / "down_proj", intermediate, text_hidden, false, graph::Operand::Inner);
  return out;
}

// Idefics2PerceiverResampler over `context` ([patches, hidden]): returns [latents, hidden].
Value perceiver_resampler(GraphBuilder& b, const Value& context, const Scope& root, const Perceiver& p) {
  auto latents = b.node(graph::NodeType::Embedding, "Perceiver_Latents", {p.latents, p.hidden}, {});
  b.parameter(latents, root("latents"), {p.latents, p.hidden}, graph::TensorRole::Other);
  const std::int64_t context_len = context.shape.size() >= 2 ? context.shape[context.shape.size() - 2] : 1;
  Value x = latents;
  for (std::int64_t i = 0; i < p.depth; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const Scope attn = l / "self_attn";
    const BlockNames names{i};
    auto q_in = norm(b, x, fmt::format("Latents_RMSNorm_{}", i), {l / "input_latents_norm", NormKind::RMSNorm});
    auto kv_in = norm(b, context, fmt::format("Context_RMSNorm_{}", i), {l / "input_context_norm", NormKind::RMSNorm});
    // Keys and values are projected from the normed context followed by the normed latents.
    const Value memory{kv_in.node, {context_len + p.latents, p.hidden}};
    auto h = cross_attention(b, q_in, memory, names.attention(),
                             {.hidden = p.hidden, .heads = p.heads, .kv_heads = p.kv_heads, .head_dim = p.head_dim,
                              .module = attn, .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj",
                              .o = attn / "o_proj", .qkv_bias = false, .o_bias = false,
                              .dropout = p.attention_dropout});
    b.at(h).inputs.push_back(q_in.node);
    x = add(b, h, x, names.add(1));
    const Scope mlp = l / "mlp";
    h = norm(b, x, names.norm(2, NormKind::RMSNorm), {l / "post_attention_layernorm", NormKind::RMSNorm});
    h = feed_forward(b, h, names.ffn(),
                     {.hidden = p.hidden, .intermediate = 4 * p.hidden, .activation = p.activation, .gated = true,
                      .module = mlp, .up = mlp / "up_proj", .down = mlp / "down_proj", .gate = mlp / "gate_proj",
                      .bias = false, .down_bias = false});
    x = add(b, h, x, names.add(2));
  }
  b.set_block(-1);
  if (p.kv_heads > p.heads)
    b.fail(x, fmt::format("num_key_value_heads={} must be less than or equal to resampler_n_heads={}", p.kv_heads,
                          p.heads));
  return norm(b, x, "Perceiver_RMSNorm", {root / "norm", NormKind::RMSNorm});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = text_config_of(c);
  const auto lm = multimodal::find_language_model(c, text_config.text({"model_type"}, "mistral"), Head::Base,
                                                 "Idefics2");
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, lm);
  const Perceiver perceiver = read_perceiver(c.child("perceiver_config"), text_hidden);
  const bool with_head = in.head != Head::Base;

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    clip::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
      tower = clip::navit_tower(in, b, vision_config, Scope(), {});
    }
    Value features;
    {
      graph::Nested nest(b, {.module = "connector", .label = "Connector_", .first_block = b.next_block()});
      auto context = modality_projection(b, tower.sequence, Scope("modality_projection"), text_config, text_hidden);
      features = perceiver_resampler(b, context, Scope("perceiver_resampler"), perceiver);
    }
    b.note(fmt::format("one {0}x{0} image: {1} patches through the vision tower, resampled to {2} image tokens in the "
                       "prompt; --image-size sets the image's side",
                       tower.input.shape.back(), tower.sequence.shape.front(), perceiver.latents));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, perceiver.latents);
    const BuildInput with_seq{in.config, in.class_name, in.head, seq, in.requested_image_size};
    out = multimodal::build_language_model(with_seq, b, text_config, lm,
                                           {.module = "text_model", .label = "LM_", .first_block = b.next_block()});
    llava::scatter_into_prompt(b, features, perceiver.latents);
  }
  if (with_head) out = llava::top_lm_head(b, out, text_config);
  // Idefics2PreTrainedModel declares no SDPA support in 4.47.1, so the model and the text model it hands its
  // attn_implementation to run eager attention (flash-attention 2 aside): every score matrix is kept.
  for (int i = 0; i < static_cast<int>(b.graph().nodes.size()); ++i)
    if (auto& n = b.at(Value{i, {}}); n.attention) n.attention->sdpa = false;
  return out;
}

}  // namespace
}  // namespace idefics2_impl

const Family& idefics2_family() {
  static const Family family{"idefics2", "models/idefics2/modeling_idefics2.py",
                             classes("Idefics2", {heads::VisionLanguageGeneration}), idefics2_impl::build};
  return family;
}

}  // namespace neurarch::families
