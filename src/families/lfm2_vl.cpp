// LFM2-VL (models/lfm2_vl/modeling_lfm2_vl.py + configuration_lfm2_vl.py, transformers 4.57.6): SigLIP 2's NaFlex
// vision tower (AutoModel of vision_config: Siglip2VisionModel, its probe head included when vision_use_head) under
// `vision_tower`; its last_hidden_state, laid out as the image's patch grid, is pixel-unshuffled by downsample_factor
// (every factor x factor patches become one token factor^2 x wider), and `multi_modal_projector` (layer_norm,
// linear_1 to projector_hidden_size -> projector_hidden_act -> linear_2 to the text width, biased by projector_bias)
// writes the tokens into LFM2 (text_config), the base model under `language_model`; the head class wraps both in
// `model` and adds `lm_head`, tied to the embedding as LFM2 ties it (tie_embedding, default true). The default image
// fills the tower's num_patches (256: a 16 x 16 grid, 64 image tokens); --image-size S runs (S / patch)^2 patches.
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace lfm2_vl_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  llava::Parts p{c.child("vision_config"), c.child("text_config")};
  p.variant = clip::Variant::Siglip2;
  const std::string vision_type = p.vision.text({"model_type"}, "siglip2_vision_model");
  if (vision_type != "siglip2_vision_model")
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                fmt::format("LFM2-VL's vision tower '{}' is not supported (siglip2_vision_model is)", vision_type));
  const auto lm = multimodal::find_language_model(c, p.text.text({"model_type"}, "lfm2"), Head::CausalLM, "LFM2-VL");
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  const bool with_head = in.head != Head::Base;
  const std::int64_t text_hidden = llava::text_width(in, p);
  const std::int64_t factor = c.dim({"downsample_factor"}, 2);
  const std::int64_t projector_hidden = c.dim({"projector_hidden_size"}, 2560);
  const bool bias = c.flag({"projector_bias"}, true);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    clip::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      tower = clip::vision_tower(in, b, p.vision, clip::Variant::Siglip2, Scope("vision_model"));
    }
    // The processor hands a square image as its full grid of patches.
    const std::int64_t patches = tower.input.shape.front();
    const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(patches)));
    const std::int64_t merged = factor > 0 ? side / factor : 0;
    const std::int64_t image_tokens = merged * merged;
    const std::int64_t width = tower.hidden * factor * factor;
    const Scope projector("multi_modal_projector");
    auto x = norm(b, Value{tower.sequence.node, {image_tokens, width}}, "Projector_LayerNorm",
                  {projector / "layer_norm"});
    if (factor < 1 || side * side != patches || side % factor != 0)
      b.fail(x, fmt::format("a {0}x{0} grid of patches cannot be pixel-unshuffled by downsample_factor {1}", side,
                            factor));
    x = dense(b, x, "Projector_Linear_1", projector / "linear_1", width, projector_hidden, bias,
              c.text({"projector_hidden_act"}, "gelu"));
    x = dense(b, x, "Projector_Linear_2", projector / "linear_2", projector_hidden, text_hidden, bias);
    b.note(fmt::format("one image of {0}x{0} patches through the vision tower, unshuffled to {1} image tokens in the "
                       "prompt; --image-size sets the image's side",
                       side, image_tokens));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, image_tokens);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, image_tokens);
  }
  if (with_head) {
    const graph::Node* embed = multimodal::prompt_embedding(b.graph());
    const graph::TensorSpec table = b.graph().tensors[static_cast<std::size_t>(embed->tensors.front())];
    LmHeadSpec head{.module = Scope("lm_head"), .hidden = table.shape.back(), .vocab = table.shape.front()};
    if (p.text.flag({"tie_embedding", "tie_word_embeddings"}, true)) head.tied_weight = table.name;
    out = lm_head(b, out, "LM_Head", head);
  }
  return out;
}

}  // namespace
}  // namespace lfm2_vl_impl

const Family& lfm2_vl_family() {
  static const Family family{"lfm2-vl", "models/lfm2_vl/modeling_lfm2_vl.py",
                             classes("Lfm2Vl", {heads::VisionLanguageGeneration}), lfm2_vl_impl::build};
  return family;
}

}  // namespace neurarch::families
