// GOT-OCR 2.0 (models/got_ocr2/modeling_got_ocr2.py + configuration_got_ocr2.py, transformers 4.57.6): SAM's image
// encoder (sam_common; GotOcr2VisionConfig has SamVisionConfig's defaults plus mlp_dim 3072) under `vision_tower`
// without SAM's `vision_encoder.` prefix, a projector of two bias-free 3x3 stride-2 convolutions (output_channels ->
// 2 x output_channels -> the text width) whose map is flattened into tokens and goes through
// `multimodal_projector` (a Linear with bias), and the language model of text_config (Qwen2 by default, the config
// class's own default with tied embeddings) as the base model under `language_model`. 4.5x names:
// `model.vision_tower.*`, `model.multi_modal_projector.*`, `model.language_model.*`, `lm_head`. A 1024-px page
// writes 64 x 64 patches, 16 x 16 = 256 image tokens.
#include <fmt/format.h>

#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"
#include "families/sam_common.hpp"

namespace neurarch::families {
namespace got_ocr2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // GotOcr2Config's text_config when absent: a 24-layer, 1024-wide Qwen2 with tied embeddings.
  static const nlohmann::json default_text{
      {"model_type", "qwen2"}, {"vocab_size", 151860}, {"hidden_size", 1024}, {"intermediate_size", 2816},
      {"num_hidden_layers", 24}, {"num_attention_heads", 16}, {"num_key_value_heads", 16},
      {"max_position_embeddings", 32768}, {"tie_word_embeddings", true}, {"rope_theta", 1000000.0},
      {"use_sliding_window", false}, {"sliding_window", 4096}, {"max_window_layers", 21}};
  llava::Parts p{c.child("vision_config"), c.child("text_config", default_text)};
  const auto lm = multimodal::find_language_model(c, p.text.text({"model_type"}, "qwen2"), Head::CausalLM,
                                                 "GOT-OCR 2");
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  const bool with_head = in.head != Head::Base;
  const std::int64_t text_hidden = llava::text_width(in, p);
  const std::int64_t channels = p.vision.dim({"output_channels"}, 256);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    Value map;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      map = sam::vision_encoder(in, b, p.vision, Scope(), 3072);
    }
    const Scope projector("multi_modal_projector");
    map = conv2d(b, map, "Projector_Conv_Upsampler1",
                 {.module = projector / "conv_upsampler1", .in = channels, .out = 2 * channels, .kernel = 3,
                  .stride = 2, .padding = 1, .bias = false});
    map = conv2d(b, map, "Projector_Conv_Upsampler2",
                 {.module = projector / "conv_upsampler2", .in = 2 * channels, .out = text_hidden, .kernel = 3,
                  .stride = 2, .padding = 1, .bias = false});
    const std::int64_t tokens = map.shape[1] * map.shape[2];
    // flatten(2).permute(0, 2, 1): the map's positions become tokens.
    const auto x = dense(b, Value{map.node, {tokens, text_hidden}}, "Projector_Linear",
                         projector / "multimodal_projector", text_hidden, text_hidden, true);
    b.note(fmt::format("one page: a {0}x{0} map from the vision tower, {1} image tokens in the prompt; --image-size "
                       "sets the page's side",
                       map.shape[1] * 4, tokens));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, tokens);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text);
  return out;
}

}  // namespace
}  // namespace got_ocr2_impl

const Family& got_ocr2_family() {
  static const Family family{"got_ocr2", "models/got_ocr2/modeling_got_ocr2.py",
                             classes("GotOcr2", {heads::VisionLanguageGeneration}), got_ocr2_impl::build};
  return family;
}

}  // namespace neurarch::families
