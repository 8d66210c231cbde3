#pragma once
// Gemma 2's decoder spec, exported for the models derived from it (modular_vaultgemma.py derives
// VaultGemma from Gemma 2).
#include "families/llama_common.hpp"

namespace neurarch::families::gemma2 {

/// Gemma2Config: Gemma's tensors with four RMSNorms per layer (input, post_attention, pre_feedforward,
/// post_feedforward) and a sliding window on every even layer.
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::gemma2
