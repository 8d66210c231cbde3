// GIT (models/git/modeling_git.py + configuration_git.py, transformers 4.47.1): a CLIP vision tower
// (`image_encoder.vision_model`, GitVisionConfig: patch 16, post_layernorm over the whole sequence), a
// `visual_projection` (Linear to the text width + LayerNorm with the vision eps), and a BERT-layout text
// decoder (`embeddings` without token types, `encoder.layer`) that runs over [image tokens ; text tokens]: the
// image tokens attend to each other, the text attends to every image token and causally to itself. Its
// self-attention has only the eager path. num_image_with_embedding (video) runs the tower once per frame and
// adds `img_temperal_embedding.<frame>` to each frame's tokens. GitForCausalLM's `output` Linear (with bias)
// reads every position; its weight is tied to the word embeddings only when tie_word_embeddings (default False).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/bert_common.hpp"
#include "families/clip_common.hpp"
#include "families/git_common.hpp"

namespace neurarch::families {
namespace git_impl {
namespace {

using namespace blocks;

// The projected image tokens, [frames * tokens, hidden]: the tower (once per frame for video), the temporal
// embeddings, then visual_projection.
Value image_tokens(const BuildInput& in, GraphBuilder& b, const Scope& root, std::int64_t hidden) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const auto* frames_key = c.raw({"num_image_with_embedding"});
  const std::int64_t frames = frames_key && !frames_key->is_null() ? c.dim({"num_image_with_embedding"}, 1) : 0;

  graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
  const clip::NavitDefaults& defaults = git::kVisionDefaults;
  auto tower = clip::clip_layout_vision_tower(in, b, vision_config, root / "image_encoder" / "vision_model", defaults,
                                              frames > 0 ? frames : 1);
  Value features = tower.sequence;
  if (frames > 0) {
    auto timed = b.node(graph::NodeType::LearnedPosEmbed, "Temporal_Embedding", features.shape, {features},
                        root / "img_temperal_embedding");
    for (std::int64_t f = 0; f < frames; ++f)
      b.parameter(timed, (root / "img_temperal_embedding")(std::to_string(f)), {1, 1, tower.hidden}, graph::TensorRole::Embedding);
    // The frames' tokens are concatenated along the sequence.
    features = Value{timed.node, {features.shape[0] * features.shape[1], tower.hidden}};
  }
  const Scope projection = root / "visual_projection" / "visual_projection";
  auto x = dense(b, features, "Visual_Projection", projection / 0, tower.hidden, hidden, true);
  return norm(b, x, "Visual_Projection_LayerNorm", {projection / 1});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "git",
      .defaults = {.vocab = 30522, .hidden = 768, .layers = 6, .heads = 12, .intermediate = 3072,
                   .max_positions = 1024},
      .pooler = bert::PoolerUse::Never,
      .token_types = false,
      .cross_attention = false,
      .sdpa = false};
  const Config& c = in.config;
  const Scope root = in.head == Head::Base ? Scope() : Scope("git");
  const Value image = image_tokens(in, b, root, c.dim({"hidden_size"}, layout.defaults.hidden));

  bert::Trunk t;
  {
    graph::Nested nest(b, {.module = "", .label = "", .first_block = b.next_block()});
    // GitModel builds its own causal mask whatever is_decoder says (the image block attends both ways).
    t = bert::trunk(in, b, layout, {.causal = true, .prefix = image});
  }
  for (const auto& input : b.graph().inputs)
    if (input.name == "input_ids") b.set_main_input(Value{input.node, input.shape});
  if (in.head != Head::CausalLM) return t.x;
  const bool tie = c.flag({"tie_word_embeddings"}, false);
  return lm_head(b, t.x, "LM_Head",
                 {.module = Scope("output"), .hidden = t.hidden, .vocab = t.vocab, .bias = true,
                  .tied_weight = tie ? t.word_embeddings : std::string()});
}

}  // namespace
}  // namespace git_impl

const Family& git_family() {
  static const Family family{"git", "models/git/modeling_git.py", classes("Git", {heads::ForCausalLM}), git_impl::build};
  return family;
}

}  // namespace neurarch::families
