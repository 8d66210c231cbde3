#pragma once
// The two towers shared by CLIP and SigLIP (models/clip/modeling_clip.py, models/siglip/modeling_siglip.py,
// transformers 4.47.1) and reused by LLaVA's vision tower: a text transformer under `text_model` and a
// vision transformer under `vision_model`, with the same encoder layer names (layer_norm1, self_attn.
// {q,k,v,out}_proj, layer_norm2, mlp.fc1/fc2). They differ in the stems, the pooling and the heads:
// CLIP's text tower is causal and pools the EOS token, its vision tower has a class token, a bias-free
// patch Conv2d, a pre-layernorm and a post-layernorm on the pooled CLS only; SigLIP's text tower is
// bidirectional, pools the last token and projects it with `head`; its vision tower has no class token,
// layernorms the whole sequence and pools with a multi-head attention probe (`head`).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::clip {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// Siglip2: SigLIP's towers with the NaFlex stem (models/siglip2/modeling_siglip2.py, transformers 4.57.6):
/// pixel_values arrive as [max_num_patches, channels * patch^2] rows, embedded by an nn.Linear, and the
/// num_patches position table (a square grid) is resized bilinearly to each image's patch grid.
enum class Variant { Clip, Siglip, Siglip2 };

struct Tower {
  Value input;     ///< the Input node (input_ids or pixel_values)
  Value sequence;  ///< last_hidden_state
  Value pooled;    ///< pooler_output: [hidden] (SigLIP text: [projection_size])
  std::vector<Value> hidden_states;  ///< vision: the encoder's input, then every layer's output
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
};

/// What CLIP's renamed copies change in Variant::Clip towers without changing the architecture: the config
/// classes' image geometry and text length, and OWL-ViT's correctly spelled pre-layernorm.
struct ClipDefaults {
  std::int64_t image_size = 224;
  std::int64_t patch = 32;
  std::int64_t text_positions = 77;
  std::string_view pre_norm = "pre_layrnorm";
};

/// `text_model` under `root` (CLIPTextTransformer / SiglipTextTransformer), from the text config `c`.
Tower text_tower(const BuildInput& in, GraphBuilder& b, const Config& c, Variant v, const Scope& root,
                 const ClipDefaults& defaults = {});
/// `vision_model` under `root` (CLIPVisionTransformer / SiglipVisionTransformer), from the vision config `c`.
/// `crops` > 1 runs the tower over that many images of one sample at once (LLaVA-NeXT's anyres crops):
/// every shape then leads with the crop count.
Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, Variant v, const Scope& root,
                   std::int64_t crops = 1, const ClipDefaults& defaults = {});

/// The config-class defaults of a NaViT-style SigLIP tower (see navit_tower).
struct NavitDefaults {
  std::int64_t hidden = 768, intermediate = 3072, layers = 12, heads = 12;
  std::int64_t image_size = 224, patch = 32;
};

/// Idefics2VisionTransformer and its copies (Idefics3, SmolVLM; models/idefics2/modeling_idefics2.py): SigLIP's
/// encoder and post_layernorm under `root` (embeddings.patch_embedding, embeddings.position_embedding,
/// encoder.layers, post_layernorm), no head. Its stem takes an image of any size: each patch's fractional
/// position is bucketized into the (image_size / patch)^2 table, so --image-size changes the patch count, not the
/// table. The tower sees one [channels, S, S] image, S = --image-size else image_size.
Tower navit_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, const NavitDefaults& d);

/// A CLIP-layout vision tower under another model's config class (GIT's GitVisionModel, Kosmos-2's vision model):
/// CLIP's stem, pre_layrnorm and encoder with that class's defaults (`d`, quick_gelu), and post_layernorm over the
/// whole sequence, since those models read the normed last_hidden_state rather than the pooled class token. Their
/// attention has only the eager path (4.47.1).
Tower clip_layout_vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root,
                               const NavitDefaults& d, std::int64_t crops = 1);

/// CLIPModel and its renamed copies (MetaCLIP 2): both CLIP towers, each projected without bias to
/// projection_dim, and the scaled cosine logits; for Head::ImageClassification the vision tower with a
/// classifier over the mean of its patch tokens.
Value clip_model(const BuildInput& in, GraphBuilder& b);
/// CLIPModel's two towers, projections and logits for a copy with other config defaults (OWL-ViT).
Value clip_model(const BuildInput& in, GraphBuilder& b, const ClipDefaults& defaults);

/// SiglipModel / Siglip2Model (both towers and the sigmoid logits) or, for Head::ImageClassification, the
/// vision tower with a classifier over the mean of its post-layernormed sequence.
Value siglip_model(const BuildInput& in, GraphBuilder& b, Variant v);

/// A CLIPModel whose text tower is another family's (AltCLIP's XLM-RoBERTa, Chinese-CLIP's BERT): `pooled_text`
/// builds the pooled text embedding inside text_model; then the text projection, CLIP's vision tower under
/// vision_model with its projection (both without bias, to projection_dim, default `projection`) and the
/// scaled cosine logits.
Value with_text_tower(const BuildInput& in, GraphBuilder& b, std::int64_t projection,
                      const std::function<Value()>& pooled_text);

/// The node that compares the towers' embeddings: L2-normalise both, one matmul, times logit_scale.exp()
/// (plus logit_bias for SigLIP). Owns `logit_scale` (and `logit_bias`) of shape `scale_shape`; `scale` renames the
/// scale parameter (ALIGN divides by its `temperature` instead).
Value contrastive_logits(GraphBuilder& b, const Value& text, const Value& image, const graph::Shape& scale_shape,
                         bool bias, std::string_view scale = "logit_scale");

}  // namespace neurarch::families::clip
