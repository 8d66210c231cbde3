// Qwen2.5-VL (models/qwen2_5_vl/modeling_qwen2_5_vl.py, transformers 4.57.6): the vision transformer of
// qwen2_vl_common with RMSNorm, a gated MLP with biases and windowed attention (windows of window_size
// pixels, full attention in fullatt_block_indexes), and the Qwen2 decoder with M-RoPE. 4.5x names:
// `model.visual`, `model.language_model` (the base decoder), `lm_head` at the top; the base class
// Qwen2_5_VLModel holds `visual` and `language_model`. The text keys come from text_config, else from the
// top level as published configs write them. The default image is the largest square the image processor
// keeps whole (980x980: 4900 patches, 1225 image tokens); the prompt must hold one token per merged patch.
#include <fmt/format.h>

#include "families/llava_common.hpp"
#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = qwen2_vl::text_config_of(c);
  const Config vision_config = c.child("vision_config");
  const decoder::DecoderSpec text = qwen2_vl::text_spec(text_config);
  const bool with_head = in.head != Head::Base;
  qwen2_vl::ImageGrid grid;
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    Value image;
    {
      graph::Nested nest(b, {.module = "visual", .label = "Vision_", .first_block = 0});
      image = qwen2_vl::vision(in, b, vision_config, qwen2_vl::Version::V2_5, grid);
    }
    if (image.shape.back() != text.hidden)
      b.fail(image, fmt::format("the merger writes {}-wide features into a {}-wide language model",
                                image.shape.back(), text.hidden));
    b.note(fmt::format("a {}x{} photo is resized to {}x{}: {} patches through the vision tower, {} image tokens in "
                       "the prompt; --image-size sets the photo's side",
                       grid.photo, grid.photo, grid.height, grid.width, grid.patches, grid.tokens));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, grid.tokens);
    {
      graph::Nested nest(b, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
      const BuildInput lm{text_config, "Qwen2_5_VLTextModel", Head::Base, seq, std::nullopt};
      out = decoder::build_decoder(lm, b, text);
    }
    llava::scatter_into_prompt(b, image, grid.tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, text_config);
  return out;
}

}  // namespace

const Family& qwen2_5_vl_family() {
  static const Family family{"qwen2_5_vl", "models/qwen2_5_vl/modeling_qwen2_5_vl.py",
                             classes("Qwen2_5_VL", {heads::VisionLanguageGeneration}), build};
  return family;
}

}  // namespace neurarch::families
