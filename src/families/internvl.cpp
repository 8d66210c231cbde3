// InternVL (models/internvl/modeling_internvl.py + configuration_internvl.py, transformers 4.57.6): InternViT
// (internvl_common.hpp) under `vision_tower`; the hidden state of vision_feature_layer (-1: last_hidden_state)
// loses its class token ("default" strategy), is laid out as its square grid of patches and pixel-shuffled by
// downsample_ratio (0.5: every 2 x 2 patches become one token 4 x wider); `multi_modal_projector` (layer_norm over
// that width, linear_1 -> projector_hidden_act -> linear_2, with biases) writes the tokens into the language model
// of text_config (Qwen2 by default), the base model under `language_model`; the head class wraps both in `model`
// and adds `lm_head`. A 448-px tile of 14-px patches gives 1024 patches and 256 image tokens (image_seq_length).
// The processor may cut a large image into several tiles plus a thumbnail; each runs the same way.
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/internvl_common.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace internvl_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  llava::Parts p{c.child("vision_config"), c.child("text_config")};
  const auto lm = multimodal::find_language_model(c, p.text.text({"model_type"}, "qwen2"), Head::CausalLM,
                                                 "InternVL");
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  const bool with_head = in.head != Head::Base;
  const std::int64_t text_hidden = llava::text_width(in, p);
  const double ratio = c.number({"downsample_ratio"}, 0.5);
  if (!(ratio > 0.0 && ratio <= 1.0))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'downsample_ratio'",
                fmt::format("expected a ratio in (0, 1], found {}", ratio));
  const auto stride = static_cast<std::int64_t>(1.0 / ratio);  // int(1 / downsample_ratio), as the projector sizes it
  const std::int64_t layer = c.integer({"vision_feature_layer"}, -1);
  const bool drop_first = llava::drops_first_token(c, "default");

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    internvl::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      tower = internvl::vision_tower(in, b, p.vision);
    }
    const auto states = static_cast<std::int64_t>(tower.hidden_states.size());
    const std::int64_t index = layer < 0 ? states + layer : layer;
    if (index < 0 || index >= states)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_layer'",
                  fmt::format("layer {} is outside the tower's {} hidden states", layer, states));
    const Value picked = layer == -1 ? tower.sequence : tower.hidden_states[static_cast<std::size_t>(index)];
    // The features are reshaped to a square grid (int(sqrt(tokens)) per side) and pixel-shuffled.
    const std::int64_t tokens = picked.shape.front() - (drop_first ? 1 : 0);
    const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(tokens)));
    const auto shuffled_side = static_cast<std::int64_t>(static_cast<double>(side) * ratio);
    const std::int64_t image_tokens = shuffled_side * shuffled_side;
    const std::int64_t width = tower.hidden * stride * stride;
    const Scope projector("multi_modal_projector");
    auto x = norm(b, Value{picked.node, {image_tokens, width}}, "Projector_LayerNorm", {projector / "layer_norm"});
    if (side * side != tokens)
      b.fail(x, fmt::format("{} patch features do not form a square grid", tokens));
    else if (static_cast<double>(side) * ratio != static_cast<double>(shuffled_side) ||
             static_cast<double>(stride) * ratio != 1.0)
      b.fail(x, fmt::format("a {}-patch side cannot be pixel-shuffled by downsample_ratio {}", side, ratio));
    x = dense(b, x, "Projector_Linear_1", projector / "linear_1", width, text_hidden, true,
              c.text({"projector_hidden_act"}, "gelu"));
    x = dense(b, x, "Projector_Linear_2", projector / "linear_2", text_hidden, text_hidden, true);
    b.note(fmt::format("one {}x{} tile: {} patches through the vision tower, pixel-shuffled to {} image tokens in the "
                       "prompt; --image-size sets the tile's side",
                       tower.input.shape[1], tower.input.shape[2], tower.grid_h * tower.grid_w, image_tokens));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, image_tokens);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, image_tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text);
  return out;
}

}  // namespace
}  // namespace internvl_impl

const Family& internvl_family() {
  static const Family family{"internvl", "models/internvl/modeling_internvl.py",
                             classes("InternVL", {heads::VisionLanguageGeneration}), internvl_impl::build};
  return family;
}

}  // namespace neurarch::families
