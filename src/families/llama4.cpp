// Llama 4 with its vision tower (models/llama4/modeling_llama4.py + configuration_llama4.py, transformers 4.57.6:
// Llama4ForConditionalGeneration). vision_model: the image unfolded into patch_size patches and projected by a
// bias-free nn.Linear (patch_embedding.linear), a class embedding appended after the patches, one learned
// position table for (image_size / patch_size)^2 + 1 tokens (positional_embedding_vlm, so a resized image cannot
// run), layernorm_pre, pre-norm layers (input_layernorm, self_attn.{q,k,v,o}_proj with biases and 2-D RoPE from a
// non-persistent buffer, post_attention_layernorm, mlp.fc1/fc2 with biases), layernorm_post, the class token
// dropped, then vision_adapter: a pixel shuffle (pixel_shuffle_ratio^2 fewer tokens, 1 / ratio^2 wider) and
// mlp.fc1 (intermediate_size -> projector_input_dim) / fc2 (projector_output_dim, square), bias-free.
// multi_modal_projector.linear_1 (vision_output_dim -> the text hidden size, bias-free) writes the image tokens
// into the prompt of language_model, a Llama4ForCausalLM built by the llama4_text family from text_config.
// The default vision config is not self-consistent (hidden 768 shuffles to 3072, fc1 reads 5632; fc2 writes
// 4096, the projector reads 7680): its tensors are exact, its forward pass is refused where the reference's
// would fail.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;
using graph::NodeType;

// Llama4VisionModel under `vision_model`: the adapted image tokens, [tokens, projector_output_dim].
Value vision_model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 34);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 5632);
  const std::int64_t configured = c.dim({"image_size"}, 448);
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const double ratio = c.number({"pixel_shuffle_ratio"}, 0.5);
  const std::int64_t projector_input = c.dim({"projector_input_dim"}, 4096);
  const std::int64_t projector_output = c.dim({"projector_output_dim"}, 4096);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const double projector_dropout = c.number({"projector_dropout"}, 0.0);
  // The MLPs hard-code nn.GELU(); hidden_act is stored but not read.
  const std::string activation = "gelu";
  if (!(ratio > 0.0 && ratio <= 1.0))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'pixel_shuffle_ratio'",
                fmt::format("expected a ratio in (0, 1], got {}", ratio));

  const std::int64_t image = in.image_size(configured);
  const std::int64_t side = image / patch;
  const std::int64_t table = (configured / patch) * (configured / patch) + 1;
  auto pixels = b.input({channels, image, image}, "pixels");

  graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
  // nn.Unfold then nn.Linear over each flattened patch; the class token joins after the patches.
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {side * side + 1, hidden}, {pixels}, Scope("patch_embedding"));
  b.parameter(x, (Scope("patch_embedding") / "linear")("weight"), {hidden, channels * patch * patch});
  b.parameter(x, "class_embedding", {hidden});
  if (image < patch) b.fail(x, fmt::format("image {}x{} is smaller than one {}-pixel patch", image, image, patch));
  auto positions = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x});
  b.parameter(positions, "positional_embedding_vlm", {table, hidden});
  if (side * side + 1 != table)
    b.fail(positions, fmt::format("the position table holds {} tokens ({}-px images), the image makes {}", table,
                                  configured, side * side + 1));
  x = norm(b, positions, "Pre_LayerNorm", {Scope("layernorm_pre")});

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("model") / "layers" / i;
    const Scope attn = l / "self_attn";
    PreNormLayer layer;
    layer.norm1 = {l / "input_layernorm"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                       .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = true, .o_bias = true,
                       .dropout = attention_dropout, .rotary = true};
    layer.norm2 = {l / "post_attention_layernorm"};
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"};
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  x = norm(b, x, "Post_LayerNorm", {Scope("layernorm_post")});

  // Dropping the class token and the pixel shuffle only reshape: autograd keeps nothing for them.
  const std::int64_t shuffled_side = static_cast<std::int64_t>(static_cast<double>(side) * ratio);
  const std::int64_t shuffled_width = static_cast<std::int64_t>(static_cast<double>(hidden) / (ratio * ratio));
  auto shuffled = b.node(NodeType::Add, "Pixel_Shuffle", {shuffled_side * shuffled_side, shuffled_width}, {x});
  const Scope mlp = Scope("vision_adapter") / "mlp";
  auto h = dense(b, shuffled, "Adapter_FC1", mlp / "fc1", intermediate, projector_input, false, activation);
  b.at(h).dropout = projector_dropout;
  return dense(b, h, "Adapter_FC2", mlp / "fc2", projector_output, projector_output, false, activation);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const auto language_model = multimodal::find_language_model(c, text_config.text({"model_type"}, "llama4_text"),
                                                              Head::CausalLM, "Llama 4");
  const Value image_tokens = vision_model(in, b, vision_config);
  const std::int64_t vision_output = vision_config.dim({"vision_output_dim"}, 7680);
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, language_model);
  const auto features = dense(b, image_tokens, "Projector_Linear", Scope("multi_modal_projector") / "linear_1",
                              vision_output, text_hidden, false);
  const Value logits = multimodal::build_language_model(
      in, b, text_config, language_model, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);
  return logits;
}

}  // namespace

const Family& llama4_family() {
  static const Family family{"llama4", "models/llama4/modeling_llama4.py",
                             {{"Llama4ForConditionalGeneration", Head::CausalLM}}, build};
  return family;
}

}  // namespace neurarch::families
