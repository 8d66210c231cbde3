#include "plan/hardware.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.hpp"
#include "core/error.hpp"

namespace neurarch::plan {
namespace {

nlohmann::json parse_json(std::string_view text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::InvalidInput, origin, std::string("invalid JSON: ") + e.what());
  }
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) throw Error(ErrorKind::InvalidInput, where, fmt::format("missing '{}'", key));
  try {
    return j[key].get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorKind::InvalidInput, where, fmt::format("'{}' has the wrong type", key));
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::vector<Card> parse_cards(std::string_view json_text, const std::string& origin) {
  auto j = parse_json(json_text, origin);
  if (!j.contains("cards") || !j["cards"].is_array()) throw Error(ErrorKind::InvalidInput, origin, "missing 'cards' array");
  std::vector<Card> cards;
  for (const auto& c : j["cards"]) {
    std::string where = fmt::format("{}: card {}", origin, c.value("name", "?"));
    Card card;
    card.name = field<std::string>(c, "name", where);
    card.memory_bytes = field<std::int64_t>(c, "memory_bytes", where);
    card.dense_tflops = field<double>(c, "dense_tflops_16bit", where);
    card.bf16_native = c.value("bf16_native", true);
    card.bandwidth_gbps = field<double>(c, "bandwidth_gbps", where);
    if (c.contains("usd_per_hour") && !c["usd_per_hour"].is_null()) card.usd_per_hour = c["usd_per_hour"].get<double>();
    card.source = field<std::string>(c, "source", where);
    if (card.memory_bytes <= 0 || card.dense_tflops <= 0 || card.bandwidth_gbps <= 0)
      throw Error(ErrorKind::InvalidInput, where, "memory, TFLOP/s and bandwidth must be positive");
    cards.push_back(std::move(card));
  }
  if (cards.empty()) throw Error(ErrorKind::InvalidInput, origin, "no cards");
  return cards;
}

Runtime parse_runtime(std::string_view json_text, const std::string& origin) {
  auto j = parse_json(json_text, origin);
  auto value = [&](const char* key) {
    if (!j.contains(key) || !j[key].contains("value"))
      throw Error(ErrorKind::InvalidInput, origin, fmt::format("missing '{}.value'", key));
    return j[key]["value"];
  };
  Runtime rt;
  rt.cuda_context_bytes = value("cuda_context_bytes").get<std::int64_t>();
  rt.cublas_workspace_bytes = value("cublas_workspace_bytes").get<std::int64_t>();
  rt.allocator_block_bytes = value("allocator_block_bytes").get<std::int64_t>();
  rt.allocator_small_request_bytes = value("allocator_small_request_bytes").get<std::int64_t>();
  rt.allocator_large_round_bytes = value("allocator_large_round_bytes").get<std::int64_t>();
  rt.fragmentation_fraction = value("fragmentation_fraction").get<double>();
  rt.safety_margin_fraction = value("safety_margin_fraction").get<double>();
  rt.achievable_compute_fraction = value("achievable_compute_fraction").get<double>();
  rt.achievable_bandwidth_fraction = value("achievable_bandwidth_fraction").get<double>();
  rt.lora_default_dropout = value("lora_default_dropout").get<double>();
  if (rt.allocator_block_bytes <= 0 || rt.allocator_large_round_bytes <= 0)
    throw Error(ErrorKind::InvalidInput, origin, "allocator rounding must be positive");
  return rt;
}

const std::vector<Card>& default_cards() {
  static const std::vector<Card> cards = parse_cards(embedded_data("cards.json"), "data/cards.json");
  return cards;
}

const Runtime& default_runtime() {
  static const Runtime rt = parse_runtime(embedded_data("runtime.json"), "data/runtime.json");
  return rt;
}

const Card& find_card(const std::vector<Card>& cards, std::string_view name) {
  for (const auto& c : cards)
    if (lower(c.name) == lower(name)) return c;
  std::vector<std::string> names;
  for (const auto& c : cards) names.push_back(c.name);
  throw Error(ErrorKind::NotFound, "--card", fmt::format("no card '{}' in the catalogue; known: {}", name, fmt::join(names, ", ")));
}

std::int64_t allocator_rounded(std::int64_t bytes, const Runtime& rt) {
  if (bytes <= 0) return 0;
  std::int64_t block = rt.allocator_block_bytes;
  return (bytes + block - 1) / block * block;
}

}  // namespace neurarch::plan
