#pragma once
// What Qwen2-VL and Qwen2.5-VL share (models/qwen2_vl/modeling_qwen2_vl.py, transformers 4.47.1;
// models/qwen2_5_vl/modeling_qwen2_5_vl.py, 4.57.6): a native-resolution vision transformer under `visual`
// (a bias-free Conv3d over temporal_patch_size x patch x patch pixels, pre-norm blocks with a fused qkv and
// 2-D rotary positions, and a PatchMerger that concatenates spatial_merge_size^2 neighbouring patches,
// norms them (ln_q) and projects them through mlp.0 -> GELU -> mlp.2 into the LM's width), and the Qwen2
// decoder with multimodal (M-)RoPE, whose three position sections (time, height, width) change which
// positions rotate q and k, not the tensors or the shapes. The prompt holds one token per merged patch.
#include <cstdint>

#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::qwen2_vl {

using blocks::GraphBuilder;
using blocks::Value;

enum class Version { V2, V2_5 };

/// The text decoder (Qwen2VLTextConfig / Qwen2_5_VLTextConfig keys with their class defaults).
decoder::DecoderSpec text_spec(const Config& text);

/// The image the processor hands over: smart_resize of a square photo (--image-size, else the largest
/// square the image processor's default max_pixels keeps whole) to multiples of patch x merge.
struct ImageGrid {
  std::int64_t photo = 0;          ///< the photo's side
  std::int64_t height = 0, width = 0;  ///< after smart_resize, in pixels
  std::int64_t patches = 0;        ///< (height / patch) x (width / patch), one temporal patch
  std::int64_t tokens = 0;         ///< patches / merge^2: image tokens in the prompt
};

/// The vision transformer under the current nest (tensors `patch_embed.*`, `blocks.*`, `merger.*`,
/// nodes "Vision_..." from the caller's nest), over one image; returns the merged features [tokens, out].
Value vision(const BuildInput& in, GraphBuilder& b, const Config& vision_config, Version v, ImageGrid& grid);

/// The text config of a composite config: `text_config` when present, else the top-level keys
/// (Qwen2-VL's config.json is flat; Qwen2.5-VL's published configs are too).
Config text_config_of(const Config& c);

/// The composite base model as transformers 4.5x lays it out (Qwen2VLModel, Qwen2_5_VLModel) under the
/// current nest: the vision transformer under `visual`, the base decoder of text_config_of(c) under
/// `language_model`, the merged image features scattered into its prompt; returns the last hidden state.
Value composite_model(const BuildInput& in, GraphBuilder& b, const Config& c, Version v);

}  // namespace neurarch::families::qwen2_vl
