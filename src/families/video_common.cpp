#include "families/video_common.hpp"

#include <fmt/format.h>

namespace neurarch::families::video {

using graph::NodeType;

std::int64_t tubelet_tokens(const Clip& clip, const Tubelet& tubelet, std::int64_t image) {
  return (clip.frames / tubelet.t) * (image / tubelet.h) * (image / tubelet.w);
}

Value tubelet_stem(GraphBuilder& b, const Clip& clip, const Tubelet& tubelet, const Scope& projection,
                   std::int64_t hidden, std::int64_t extra_tokens) {
  auto pixels = b.input({clip.frames, clip.channels, clip.image, clip.image}, "pixels");
  auto out = b.node(NodeType::PatchEmbed, "Tubelet_Embed", {extra_tokens + tubelet_tokens(clip, tubelet, clip.image), hidden},
                    {pixels}, projection);
  b.parameter(out, projection("weight"), {hidden, clip.channels, tubelet.t, tubelet.h, tubelet.w}, graph::TensorRole::Conv);
  b.parameter(out, projection("bias"), {hidden}, graph::TensorRole::Bias);
  if (clip.frames < tubelet.t || clip.image < tubelet.h || clip.image < tubelet.w)
    b.fail(out, fmt::format("a clip of {} frames of {}x{} is smaller than one {}x{}x{} tubelet", clip.frames,
                            clip.image, clip.image, tubelet.t, tubelet.h, tubelet.w));
  return out;
}

void refuse_other_sizes(GraphBuilder& b, const Value& stem, const Clip& clip, std::string_view family) {
  if (clip.image == clip.configured_image) return;
  b.fail(stem, fmt::format("{} refuses {}x{} frames: its embeddings are sized for the configured image_size {}; run at "
                           "--image-size {}",
                           family, clip.image, clip.image, clip.configured_image, clip.configured_image));
}

}  // namespace neurarch::families::video
