#pragma once
// Pieces the hybrid attention / state-space decoders share (Bamba, FalconH1): their Mamba-2 mixers read
// the same mamba_* keys, and their layers differ only in which token mixer sits after input_layernorm.
#include <cstdint>

#include "blocks/ssm.hpp"
#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::hybrid {

struct Mamba2Defaults {
  std::int64_t heads = 128;
  std::int64_t state = 256;
  std::int64_t inner = 0;  ///< 0: mamba_expand x hidden
};

/// A Mamba-2 mixer from mamba_n_heads, mamba_d_head ("auto": inner / heads), mamba_n_groups, mamba_d_state,
/// mamba_d_conv, mamba_expand, mamba_conv_bias and mamba_proj_bias; `inner` as the caller decides.
blocks::MambaMixerSpec mamba2_mixer(const Config& c, std::int64_t hidden, const Mamba2Defaults& d);

/// The Llama-shaped part both configs state alike: read_llama_config with their class defaults (only
/// max_position_embeddings differs), attention_bias on q/k/v/o, mlp_bias on the MLP, attention_dropout, and
/// the modules named feed_forward, pre_ff_layernorm and final_layernorm.
decoder::DecoderSpec llama_shaped_spec(const Config& c, std::int64_t positions);

}  // namespace neurarch::families::hybrid
