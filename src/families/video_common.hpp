#pragma once
// Pieces the video transformers share (VideoMAE, ViViT, TimeSformer): a clip of frames read from the config,
// and the tubelet embedding, a Conv3d whose kernel and stride are one tubelet (frames x height x width), so
// a clip of T frames becomes (T / t)(H / p_h)(W / p_w) tokens. pixel_values are [frames, channels, H, W] per
// sample, as the reference takes them.
#include <cstdint>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::video {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

struct Clip {
  std::int64_t frames = 16;
  std::int64_t channels = 3;
  std::int64_t configured_image = 224;  ///< image_size of the config
  std::int64_t image = 224;             ///< the frame size that runs (--image-size, else configured)
};

struct Tubelet {
  std::int64_t t = 2, h = 16, w = 16;
};

/// Input [frames, channels, image, image] -> Patch_Embed [extra + tokens, hidden]; Conv3d at `projection`.
/// Fails when the clip or a frame is smaller than one tubelet.
Value tubelet_stem(GraphBuilder& b, const Clip& clip, const Tubelet& tubelet, const Scope& projection,
                   std::int64_t hidden, std::int64_t extra_tokens);

/// The tokens a clip makes: (frames / t) (image / h) (image / w), floor division as the Conv3d.
std::int64_t tubelet_tokens(const Clip& clip, const Tubelet& tubelet, std::int64_t image);

/// The reference checks the frame size against image_size and sizes its position table for it.
void refuse_other_sizes(GraphBuilder& b, const Value& stem, const Clip& clip, std::string_view family);

}  // namespace neurarch::families::video
