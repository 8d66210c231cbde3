#pragma once
// Qwen3's decoder spec, exported for the families that keep its layer (Qwen3-VL's text model).
#include "families/llama_common.hpp"

namespace neurarch::families {

/// Llama's layer with per-head q/k RMSNorms, attention_bias on q/k/v/o, Qwen2's sliding-window rules and the
/// QA head's `transformer.` prefix, read with `defaults`.
decoder::DecoderSpec qwen3_spec(const Config& c, const decoder::LlamaDefaults& defaults);

}  // namespace neurarch::families
