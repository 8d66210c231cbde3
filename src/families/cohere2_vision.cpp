// Cohere2-Vision (models/cohere2_vision/modeling_cohere2_vision.py, transformers 4.57.6): a SigLIP vision
// tower (AutoModel of vision_config: SiglipVisionModel, its attention-pooling head included, which the forward
// runs though only last_hidden_state is used), a projector that pixel-shuffles downsample_factor^2 neighbouring
// patches into one feature and runs linear_1 -> SwiGLU (silu of its second half times its first) -> linear_2
// into the language model's width, and the base model of text_config (Cohere 2 by default, its lm_head tied)
// under `language_model`. 4.5x names: `model.vision_tower.vision_model.*`, `model.multi_modal_projector.*`,
// `model.language_model.*`, `lm_head`. The graph runs one tile of the tower's image_size (the processor cuts
// a photo into up to max_patches such tiles plus a thumbnail); the SwiGLU split is linear_1's SiLU over its
// whole output and linear_2 reading half of it.
#include <cmath>

#include <fmt/format.h>

#include "families/llava_common.hpp"

namespace neurarch::families {
namespace cohere2_vision_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // Cohere2VisionConfig's sub-configs when absent.
  static const nlohmann::json default_vision{{"model_type", "siglip_vision_model"}, {"hidden_size", 1152},
                                             {"intermediate_size", 3072}, {"image_size", 512},
                                             {"num_hidden_layers", 27}, {"num_attention_heads", 12}};
  llava::Parts p = llava::read_parts(c, default_vision, "cohere2");
  // The default text config is Cohere2Config(tie_word_embeddings=True), which Cohere2Config's default agrees with.
  const bool tied = p.text.flag({"tie_word_embeddings"}, true);
  const bool with_head = in.head != Head::Base;
  const std::int64_t factor = c.dim({"downsample_factor"}, 2);
  const std::int64_t intermediate = c.dim({"alignment_intermediate_size"}, 36864);
  const std::int64_t text_hidden = llava::text_width(in, p);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    clip::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
      tower = clip::vision_tower(in, b, p.vision, p.variant, Scope("vision_model"));
    }
    const std::int64_t patches = tower.sequence.shape[tower.sequence.shape.size() - 2];
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(patches))));
    const std::int64_t rows = side / factor;
    const std::int64_t features = rows * rows;
    const Scope projector("multi_modal_projector");
    auto x = dense(b, Value{tower.sequence.node, {features, tower.hidden * factor * factor}}, "Projector_Linear_1",
                   projector / "linear_1", tower.hidden * factor * factor, intermediate, true, "silu");
    if (side * side != patches || side % factor != 0)
      b.fail(x, fmt::format("{} patches do not pixel-shuffle {} by {}", patches, factor, factor));
    x = dense(b, Value{x.node, {features, intermediate / 2}}, "Projector_Linear_2", projector / "linear_2",
              intermediate / 2, text_hidden, true);
    b.note(fmt::format("one {}x{}-patch tile writes {} image features; the processor cuts larger photos into more "
                       "tiles plus a thumbnail",
                       side, side, features));
    const std::int64_t seq = llava::prompt_length(in, b, p.text, features);
    out = llava::language_model(in, b, p, llava::Layout::Model, seq);
    llava::scatter_into_prompt(b, x, features);
  }
  if (with_head) out = llava::top_lm_head(b, out, p.text, tied);
  return out;
}

}  // namespace
}  // namespace cohere2_vision_impl

const Family& cohere2_vision_family() {
  static const Family family{"cohere2_vision", "models/cohere2_vision/modeling_cohere2_vision.py",
                             classes("Cohere2Vision", {heads::VisionLanguageGeneration}), cohere2_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
