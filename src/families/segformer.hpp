#pragma once
// SegFormer's Mix Transformer encoder (segformer.cpp), exported for the models that copy it (GLPN).
#include <cstdint>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::segformer {

struct EncoderOutput {
  std::vector<graph::Value> maps;  ///< every stage's [hidden_sizes[i], h, w] map, shallowest first
  graph::Value tokens;             ///< the last stage's tokens after its LayerNorm
};

/// The encoder under `root` / "encoder" (patch_embeddings, block, layer_norm), over a square image of
/// `default_image` pixels unless the run asks for another size; declares the pixel input.
EncoderOutput encoder(const BuildInput& in, graph::GraphBuilder& b, const graph::Scope& root,
                      std::int64_t default_image);

}  // namespace neurarch::families::segformer
