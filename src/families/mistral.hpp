#pragma once
// Mistral's decoder spec, exported for the families that keep its layer and change only defaults
// (Ministral 3).
#include "families/llama_common.hpp"

namespace neurarch::families {

/// Llama's layer without bias switches, with Mistral's sliding window (null = full attention).
decoder::DecoderSpec mistral_spec(const Config& c, const decoder::LlamaDefaults& defaults, std::int64_t default_window);

}  // namespace neurarch::families
