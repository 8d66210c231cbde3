#pragma once
// Size limits for untrusted input. They bound memory and time before any parsing or building starts.
// docs/hostile-input.md explains each and shows the largest published models far inside them.
#include <cstdint>

namespace neurarch::limits {
inline constexpr std::uint64_t kMaxConfigBytes = 16ull << 20;            // config.json larger than this is not a config
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20; // safetensors' own reference limit
inline constexpr std::uint64_t kMaxIndexBytes = 64ull << 20;             // model.safetensors.index.json
inline constexpr std::int64_t kMaxScalars = std::int64_t{1} << 40;       // per tensor and per model: ~1.1e12
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 32;     // one config size such as hidden_size
/// Nesting of a JSON document (config, request body, index): deeper text is not a config, and the JSON
/// library's printing and comparing recurse once per level.
inline constexpr int kMaxJsonDepth = 64;

// What a config may declare, checked from its numbers before anything is built (model/declared_sizes.cpp).
// The largest published models (DeepSeek-V3: 61 layers, 256 experts; Llama-3.1-405B: 126 layers) use
// under 5% of each.
inline constexpr std::int64_t kMaxLayers = 4096;         // one stack (num_hidden_layers, encoder_layers...)
inline constexpr std::int64_t kMaxTotalLayers = 16384;   // all stacks of all sub-models together
inline constexpr std::int64_t kMaxExperts = 65536;       // experts of one MoE layer (Doge's default: 16,384)
inline constexpr std::int64_t kMaxSequence = std::int64_t{1} << 24;    // --seq, --target-seq: 16M tokens
inline constexpr std::int64_t kMaxImageSide = std::int64_t{1} << 16;   // --image-size and image_size, pixels
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 20;       // --batch
/// Activation scalars of one training step (batch x tokens x widths x layers, plus attention scores):
/// 2^54 scalars keeps every byte count the planner forms below 2^63.
inline constexpr std::int64_t kMaxActivationScalars = std::int64_t{1} << 54;

// What one build may create, enforced by graph::GraphBuilder as it goes: a config the declared-size
// check misjudges still stops here, after bounded time and memory (~200 bytes per node or tensor).
inline constexpr std::int64_t kMaxNodes = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxTensors = std::int64_t{1} << 20;
/// The declared-size estimate of nodes and tensors may pass the build budget by this factor before the
/// config is refused unbuilt: it counts every expert as tensors of its own, which fused experts are not.
inline constexpr std::int64_t kEstimateSlack = 16;
}  // namespace neurarch::limits
