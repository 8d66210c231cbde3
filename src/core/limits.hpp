#pragma once
// Size limits for untrusted input. They bound memory and time before any parsing starts.
#include <cstdint>

namespace neurarch::limits {
inline constexpr std::uint64_t kMaxConfigBytes = 16ull << 20;            // config.json larger than this is not a config
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20; // safetensors' own reference limit
inline constexpr std::uint64_t kMaxIndexBytes = 64ull << 20;             // model.safetensors.index.json
inline constexpr std::int64_t kMaxScalars = std::int64_t{1} << 40;       // per tensor and per model: ~1.1e12
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 32;     // one config size such as hidden_size
inline constexpr int kMaxLayers = 4096;
}  // namespace neurarch::limits
