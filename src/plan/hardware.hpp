#pragma once
// Cards and runtime constants, read from data/cards.json and data/runtime.json (embedded in the
// binary; --cards / --runtime load edited copies). No hardware number lives in code.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neurarch::plan {

struct Card {
  std::string name;
  std::int64_t memory_bytes = 0;
  double dense_tflops = 0;  ///< bf16 (or fp16 where bf16_native is false) dense tensor throughput
  bool bf16_native = true;
  double bandwidth_gbps = 0;
  std::optional<double> usd_per_hour;
  std::string source;
};

struct Runtime {
  std::int64_t cuda_context_bytes = 0;
  std::int64_t cublas_workspace_bytes = 0;
  std::int64_t allocator_block_bytes = 512;
  std::int64_t allocator_small_request_bytes = 1 << 20;
  std::int64_t allocator_large_round_bytes = 2 << 20;
  double fragmentation_fraction = 0;
  double safety_margin_fraction = 0;
  double achievable_compute_fraction = 0.45;
  double achievable_bandwidth_fraction = 0.8;
  double lora_default_dropout = 0.05;
};

/// Parses a cards file; `origin` names it in errors.
std::vector<Card> parse_cards(std::string_view json_text, const std::string& origin);
Runtime parse_runtime(std::string_view json_text, const std::string& origin);
const std::vector<Card>& default_cards();
const Runtime& default_runtime();
/// Card by name, case-insensitive; throws a NotFound error listing the catalogue.
const Card& find_card(const std::vector<Card>& cards, std::string_view name);

/// A tensor of `bytes` as the CUDA caching allocator hands it out (512-byte blocks).
std::int64_t allocator_rounded(std::int64_t bytes, const Runtime& rt);

}  // namespace neurarch::plan
