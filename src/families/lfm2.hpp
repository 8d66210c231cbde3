#pragma once
// LFM2's decoder spec, exported for LFM2-MoE (modular_lfm2_moe.py keeps its attention and short convolutions).
#include "families/llama_common.hpp"

namespace neurarch::families::lfm2 {

/// LFM2's names (out_proj, q/k_layernorm, feed_forward w1/w3/w2, operator_norm / ffn_norm / embedding_norm), the
/// short convolution on the layers layer_types (else full_attn_idxs) calls "conv", tie_embedding, read with
/// `defaults`. The feed-forward width is the caller's: LFM2 shrinks it, LFM2-MoE does not.
decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults);

/// The gated short convolution of layer i under `module` (in_proj -> depthwise causal Conv1d of `kernel` over B * x
/// -> C * conv -> out_proj) on [seq, hidden]; LFM3 keeps it.
graph::Value short_conv(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& module,
                        std::int64_t hidden, std::int64_t kernel, bool bias);

}  // namespace neurarch::families::lfm2
