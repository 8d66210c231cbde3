#pragma once
// Mamba's mixer: in_proj widens the input to x and the gate z, a depthwise causal conv1d mixes
// neighbouring tokens, a selective state-space scan runs over the sequence, and out_proj narrows
// back. Version 1 (Mamba) derives dt, B and C per token through x_proj and dt_proj; version 2
// (Mamba-2) takes them straight from in_proj and normalises the gated output.
#include <cstdint>
#include <optional>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct MambaMixerSpec {
  int version = 1;
  std::int64_t hidden = 0;
  std::int64_t inner = 0;
  std::int64_t state = 16;
  std::int64_t conv_kernel = 4;
  std::int64_t time_step_rank = 0;  ///< version 1
  std::int64_t heads = 0;           ///< version 2
  std::int64_t head_dim = 0;        ///< version 2
  std::int64_t groups = 1;          ///< version 2
  bool bias = false;       ///< use_bias: in_proj and out_proj
  bool conv_bias = true;   ///< use_conv_bias
  Scope module;            ///< the mixer
  // Appended for the hybrid decoders (FalconH1): an optional version-2 norm and a separate out_proj bias.
  bool gated_norm = true;         ///< version 2: the gated RMSNorm `norm` [inner] before out_proj
  std::optional<bool> out_bias;   ///< out_proj's bias when it differs from in_proj's (FalconH1's projectors_bias)
};

/// [seq, hidden] -> [seq, hidden].
Value mamba_mixer(GraphBuilder& b, const Value& x, const std::string& name, const MambaMixerSpec& spec);

}  // namespace neurarch::blocks
