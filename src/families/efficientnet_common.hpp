#pragma once
// EfficientNet's stem and MBConv blocks (models/efficientnet/modeling_efficientnet.py, transformers 4.47.1), shared
// by EfficientNet (which ends them with a top conv) and ALIGN's vision tower (which pools the last block directly).
// Channels are scaled by round_filters (width_coefficient, rounded to depth_divisor, never more than 10% down) and
// each base stage repeated ceil(depth_coefficient x num_block_repeats) times. The stem zero-pads right and bottom by
// one and runs a valid 3x3 stride-2 conv + BatchNorm + activation. A block expands 1x1 (when expand_ratio != 1),
// runs a depthwise conv (stride 2: a zero pad of k // 2 - 1 before and k // 2 after, or k // 2 on both sides for
// the blocks listed in depthwise_padding, then a valid conv; stride 1: same padding), squeezes and excites
// (reduced to in_dim x squeeze_expansion_ratio channels), projects 1x1, and adds its input back after dropout when
// it is not a stage's first block.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::efficientnet {

/// The pixel input, `embeddings` and `encoder.blocks` under `root`, read from the vision config `c`;
/// `width` receives the last block's channel count.
graph::Value blocks(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const graph::Scope& root,
                    std::int64_t& width);

/// round_filters(config, channels): what a base channel count becomes under width_coefficient.
std::int64_t round_filters(const Config& c, std::int64_t channels);

/// The pooler's kind, checked: true for "max", false for "mean".
bool max_pooling(const Config& c);

}  // namespace neurarch::families::efficientnet
