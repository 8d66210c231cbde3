#pragma once
// Hunyuan dense's decoder spec, exported for Hunyuan MoE (modular_hunyuan_v1_moe.py keeps its attention).
#include "families/qwen3.hpp"

namespace neurarch::families::hunyuan_v1_dense {

/// Qwen3's layer with the per-head norms named query_layernorm / key_layernorm, no sliding window, and
/// HunYuanDenseV1Config's defaults (which HunYuanMoEV1Config repeats).
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::hunyuan_v1_dense
