#pragma once
// The OLMo line's decoder specs, exported so each generation states only what it changes
// (transformers' modular_olmo2.py derives Olmo2 from Olmo, modular_olmo3.py Olmo3 from Olmo2).
#include "families/llama_common.hpp"

namespace neurarch::families::olmo {

/// OlmoConfig: Llama's layer with OLMo's defaults, attention_bias on q/k/v/o, and LayerNorms without
/// parameters.
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::olmo

namespace neurarch::families::olmo2 {

/// Olmo2Config: OLMo's spec with RMSNorms moved after the sublayers (no input norm) and q/k
/// RMS-normalised over all heads at once.
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::olmo2
