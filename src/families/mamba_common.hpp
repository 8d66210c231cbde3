#pragma once
// The Mamba stack shared by Mamba, FalconMamba and Mamba-2: backbone.embeddings -> N residual
// blocks (RMSNorm `norm` then the mixer, added to the residual) -> norm_f -> lm_head (tied to the
// embeddings when tie_word_embeddings). No attention and no positions.
#include <cstdint>

#include "blocks/ssm.hpp"
#include "families/family.hpp"

namespace neurarch::families::mamba {

struct Stack {
  std::int64_t vocab = 0;
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  bool tie_word_embeddings = true;
  blocks::MambaMixerSpec mixer;  ///< module is filled per layer
};

/// time_step_rank: a number, or "auto" (the default) for ceil(hidden / 16).
std::int64_t time_step_rank(const Config& c, std::int64_t hidden);

/// Mamba-1's configuration keys and defaults (Mamba and FalconMamba read the same ones).
Stack v1_stack(const Config& c);

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Stack& s);

}  // namespace neurarch::families::mamba
