// GroupViT (models/groupvit/modeling_groupvit.py, transformers 5.24.0; the shared fixture is 4.47.1): a contrastive
// pair of towers. The text tower is CLIP's layout (causal, pooled at the EOS token) with GroupViT's smaller
// defaults; the vision tower embeds patches (Conv2d with bias, layernorm, then positions, no class token) and runs
// stages: each appends its learned group tokens (plus, after the first, the previous stage's group tokens mixed
// across the token axis by group_projector) to the image tokens for `depth` pre-norm layers, then a grouping block
// (downsample) assigns the image tokens to num_output_groups new tokens: a token-mixing MLP of the group tokens,
// a cross-attention layer to the image tokens, and a single-head hard assignment (softmax over the groups). The
// pooled outputs go through Linear -> BatchNorm1d -> ReLU -> Linear projections. Attention is eager-only.
#include "blocks/conv.hpp"
#include "families/clip_common.hpp"
#include "families/groupvit_common.hpp"

namespace neurarch::families {
namespace groupvit_impl {
namespace {

using namespace blocks;

// visual_projection / text_projection: Linear -> BatchNorm1d -> ReLU -> Linear (Sequential indices 0, 1, 3).
Value projection_head(GraphBuilder& b, const Value& pooled, const Scope& m, std::int64_t in, std::int64_t inter,
                      std::int64_t out) {
  auto h = dense(b, Value{pooled.node, {1, in}}, "Projection_FC1", m / "0", in, inter, true);
  h = batch_norm1d(b, h, "Projection_BatchNorm", m / "1", "relu");
  h = dense(b, h, "Projection_FC2", m / "3", inter, out, true);
  return Value{h.node, {out}};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 256);
  const std::int64_t inter = c.dim({"projection_intermediate_dim"}, 4096);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto pooled = groupvit::text_tower(in, b, text_config, Scope("text_model"));
    text_embeds = projection_head(b, pooled, Scope("text_projection"), pooled.shape.back(), inter, projection);
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto pooled = groupvit::vision_tower(in, b, vision_config, Scope("vision_model"));
    image_embeds = projection_head(b, pooled, Scope("visual_projection"), pooled.shape.back(), inter, projection);
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

}  // namespace
}  // namespace groupvit_impl

const Family& groupvit_family() {
  static const Family family{"groupvit", "models/groupvit/modeling_groupvit.py", classes("GroupViT"), groupvit_impl::build};
  return family;
}

}  // namespace neurarch::families
