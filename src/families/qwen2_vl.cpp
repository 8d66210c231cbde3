// Qwen2-VL (models/qwen2_vl/modeling_qwen2_vl.py, transformers 4.47.1): the vision transformer of
// qwen2_vl_common (LayerNorm blocks, fc1/fc2 MLP of mlp_ratio x embed_dim) under `visual`, and the Qwen2
// decoder with M-RoPE whose keys sit at the top level of config.json (there is no text_config) under
// `model`, with `lm_head`. In 4.47.1 the base class Qwen2VLModel is that decoder alone. The default image is
// the largest square the image processor keeps whole (980x980: 4900 patches, 1225 image tokens); the
// prompt must hold one token per merged patch. --image-size sets the (square) photo's side.
#include <fmt/format.h>

#include "families/llava_common.hpp"
#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace qwen2_vl_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const decoder::DecoderSpec text = qwen2_vl::text_spec(c);
  if (in.head == Head::Base) return decoder::build_decoder(in, b, text);
  const Config vision_config = c.child("vision_config");
  qwen2_vl::ImageGrid grid;
  Value image;
  {
    graph::Nested nest(b, {.module = "visual", .label = "Vision_", .first_block = 0});
    image = qwen2_vl::vision(in, b, vision_config, qwen2_vl::Version::V2, grid);
  }
  if (image.shape.back() != text.hidden)
    b.fail(image, fmt::format("the merger writes {}-wide features into a {}-wide language model", image.shape.back(),
                              text.hidden));
  b.note(fmt::format("a {}x{} photo is resized to {}x{}: {} patches through the vision tower, {} image tokens in "
                     "the prompt; --image-size sets the photo's side",
                     grid.photo, grid.photo, grid.height, grid.width, grid.patches, grid.tokens));
  const std::int64_t seq = llava::prompt_length(in, b, c, grid.tokens);
  Value logits;
  {
    graph::Nested nest(b, {.module = "", .label = "LM_", .first_block = b.next_block()});
    const BuildInput lm{c, in.class_name, Head::CausalLM, seq, std::nullopt};
    logits = decoder::build_decoder(lm, b, text);
  }
  llava::scatter_into_prompt(b, image, grid.tokens);
  return logits;
}

}  // namespace
}  // namespace qwen2_vl_impl

const Family& qwen2_vl_family() {
  static const Family family{"qwen2_vl", "models/qwen2_vl/modeling_qwen2_vl.py",
                             classes("Qwen2VL", {heads::VisionLanguageGeneration}), qwen2_vl_impl::build};
  return family;
}

}  // namespace neurarch::families
