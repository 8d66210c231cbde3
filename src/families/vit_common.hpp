#pragma once
// Pieces shared by the ViT-layout vision families (ViT, DeiT, ViT-MSN, I-JEPA, ViT-MAE, YOLOS,
// DINOv2 with registers, DINOv3): image geometry read from the config, the pixel stem, and the two
// per-layer naming schemes of the reference code (ViT's layernorm_before / attention.attention /
// intermediate / output, DINOv2's norm1 / layer_scale1 / mlp / layer_scale2).
#include <string>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::vit {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// A height and a width: the reference accepts an int or an [h, w] pair for image_size / patch_size.
struct Size2 {
  std::int64_t h = 0;
  std::int64_t w = 0;
  bool pair = false;  ///< written as [h, w] in the config
};
Size2 read_size2(const Config& c, std::string_view key, Size2 fallback);

struct Geometry {
  std::int64_t channels = 3;
  Size2 configured;  ///< image_size of the config: what the position table was sized for
  Size2 input;       ///< the image that runs: --image-size (square), else the configured one
  Size2 patch;
  std::int64_t configured_patches() const { return (configured.h / patch.h) * (configured.w / patch.w); }
  std::int64_t input_patches() const { return (input.h / patch.h) * (input.w / patch.w); }
  bool input_differs() const { return input.h != configured.h || input.w != configured.w; }
};
Geometry read_geometry(const BuildInput& in, Size2 default_image, std::int64_t default_patch);

/// Input -> Patch_Embed ([extra + patches, hidden]); the Conv2d lives at `projection`.
Value pixel_stem(GraphBuilder& b, const Geometry& g, const Scope& projection, std::int64_t hidden,
                 std::int64_t extra_tokens);

/// ViT-style patch embeddings refuse any image but the configured one unless the caller passes
/// interpolate_pos_encoding=True to forward; record that on the Patch_Embed node.
void refuse_other_sizes(GraphBuilder& b, const Value& patch_embed, const Geometry& g, std::string_view family);

/// Learned_Pos_Embed: owns `<embeddings>.position_embeddings` [1, rows, hidden]; output shape `out`.
Value position_table(GraphBuilder& b, const Value& x, const Scope& embeddings, std::int64_t rows, graph::Shape out);

struct EncoderSpec {
  Scope layers;  ///< the ModuleList, e.g. "vit.encoder.layer"
  std::int64_t hidden = 768;
  std::int64_t count = 12;
  std::int64_t heads = 12;
  std::int64_t intermediate = 3072;
  std::string activation = "gelu";
  bool qkv_bias = true;
  bool swiglu = false;          ///< DINOv2's fused SwiGLU MLP (weights_in / weights_out)
  std::int64_t first_block = 0;  ///< node numbering of layer 0 (a decoder continues after the encoder)
};

/// ViTConfig's encoder keys (hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
/// hidden_act, qkv_bias), each defaulting to `defaults`' value (EncoderSpec's own are ViTConfig's). The
/// ViT copies (DeiT, I-JEPA, ViT-MAE, ViT-MSN, DPT, YOLOS) read their encoder through it; `layers` is theirs.
EncoderSpec read_encoder(const Config& c, const EncoderSpec& defaults = {});
/// Dinov2Config's: the same keys but the MLP width, hidden_size * mlp_ratio, or with use_swiglu_ffn the
/// fused SwiGLU's 2/3 of it rounded up to a multiple of 8.
EncoderSpec read_dinov2_encoder(const Config& c, const EncoderSpec& defaults = {});

/// One pre-norm layer under ViT's module names: module `layers.<index>`, node block `block`.
Value vit_layer(GraphBuilder& b, const Value& x, const EncoderSpec& s, std::int64_t index, std::int64_t block);
/// All `s.count` layers, numbered from s.first_block.
Value vit_layers(GraphBuilder& b, Value x, const EncoderSpec& s);
/// One pre-norm layer with layer scale under DINOv2's module names (`layers.<index>`, node block `block`).
Value dinov2_layer(GraphBuilder& b, const Value& x, const EncoderSpec& s, std::int64_t index, std::int64_t block);
/// All `s.count` DINOv2 layers, numbered from s.first_block.
Value dinov2_layers(GraphBuilder& b, Value x, const EncoderSpec& s);

/// What a head that reads token `x[:, 0]` sees: the last node, one feature vector.
inline Value first_token(const Value& x) { return Value{x.node, {x.shape.back()}}; }

/// SimMIM's decoder (ViT/DeiT ForMaskedImageModeling): a 1x1 Conv2d to stride^2 * C channels and a
/// PixelShuffle, over the `tokens` patch tokens laid out as a square grid -> [C, g * stride, g * stride].
Value simmim_decoder(GraphBuilder& b, const Value& x, std::int64_t tokens, const Geometry& g, std::int64_t hidden,
                     std::int64_t stride);

/// BEiT's model (defined in beit.cpp, shared with Data2VecVision): `prefix` is the base model's attribute
/// name in head classes; `base_pooler` is the base class's add_pooling_layer default.
Value beit_model(const BuildInput& in, GraphBuilder& b, std::string_view prefix, bool base_pooler);

}  // namespace neurarch::families::vit
