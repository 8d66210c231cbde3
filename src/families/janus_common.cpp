#include "families/janus_common.hpp"

#include "families/multimodal_common.hpp"

namespace neurarch::families::janus {

using namespace blocks;

Value vision_model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 1024);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured = c.dim({"image_size"}, 384);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const auto intermediate = static_cast<std::int64_t>(static_cast<double>(hidden) * c.number({"mlp_ratio"}, 4.0));
  const bool qkv_bias = c.flag({"attention_bias"}, true);
  const bool qk_norm = c.flag({"use_qk_norm"}, false);
  const std::string activation = c.text({"hidden_act"}, "gelu");

  const std::int64_t image = in.image_size(configured);
  auto x = b.input({channels, image, image}, "pixels");
  const Scope emb("embeddings");
  x = patch_embed(b, x, "Patch_Embed", {.projection = emb / "patch_embedding", .channels = channels, .dim = hidden,
                                        .patch = patch});
  x = learned_positions(b, x, "Learned_Pos_Embed", emb / "position_embedding",
                        (configured / patch) * (configured / patch), hidden);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("encoder") / "layers" / i;
    const Scope attn = l / "self_attn";
    const BlockNames names{i};
    auto h = norm(b, x, names.norm(1, NormKind::LayerNorm), {l / "layer_norm1"});
    h = attention(b, h, names.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                   .v = attn / "v_proj", .o = attn / "projection_layer", .qkv_bias = qkv_bias, .o_bias = true});
    if (qk_norm)
      for (const char* n : {"q_norm", "k_norm"}) {
        b.parameter(h, (attn / n)("weight"), {hidden}, graph::TensorRole::Norm);
        b.parameter(h, (attn / n)("bias"), {hidden}, graph::TensorRole::Bias);
      }
    x = add(b, h, x, names.add(1));
    h = norm(b, x, names.norm(2, NormKind::LayerNorm), {l / "layer_norm2"});
    h = feed_forward(b, h, names.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = l / "mlp",
                      .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"});
    x = add(b, h, x, names.add(2));
  }
  b.set_block(-1);
  return norm(b, x, "Post_LayerNorm", {Scope("post_layernorm")});
}

}  // namespace neurarch::families::janus
