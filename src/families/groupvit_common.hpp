#pragma once
// GroupViT's two towers (models/groupvit/modeling_groupvit.py, transformers 5.24.0), shared by GroupViTModel and the
// towers built alone (GroupViTTextModel, GroupViTVisionModel). The text tower is CLIP's layout (causal, pooled at
// the EOS token) with GroupViT's smaller defaults; the vision tower embeds patches (Conv2d with bias, layernorm,
// then positions, no class token) and runs grouping stages (see groupvit.cpp). Attention is eager-only.
#include "families/family.hpp"

namespace neurarch::families::groupvit {

/// GroupViTVisionTransformer under `root`, from the vision config `c`: returns the pooled output (the mean of the
/// layernormed last state) [hidden].
graph::Value vision_tower(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const graph::Scope& root);

/// GroupViTTextTransformer under `root`, from the text config `c`: returns the EOS token's final state [hidden].
graph::Value text_tower(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const graph::Scope& root);

}  // namespace neurarch::families::groupvit
