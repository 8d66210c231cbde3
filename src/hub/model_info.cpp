#include "hub/model_info.hpp"

#include <nlohmann/json.hpp>

namespace neurarch::hub {
namespace {

using nlohmann::json;

std::string text_field(const json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> count_field(const json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

}  // namespace

std::optional<ModelInfo> parse_model_info(std::string_view json_text) {
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  ModelInfo info;
  info.id = text_field(doc, "id");
  info.sha = text_field(doc, "sha");
  info.last_modified = text_field(doc, "lastModified");
  info.downloads = count_field(doc, "downloads");
  info.likes = count_field(doc, "likes");
  // The Hub sends false for open models and "auto" or "manual" for gated ones.
  if (const auto it = doc.find("gated"); it != doc.end()) {
    info.gated = it->is_string() ? it->get<std::string>() : (it->is_boolean() && it->get<bool>() ? "true" : "false");
  }
  if (const auto st = doc.find("safetensors"); st != doc.end() && st->is_object()) {
    info.safetensors_total = count_field(*st, "total");
  }
  return info;
}

std::string model_info_json(const ModelInfo& info) {
  json doc = {{"id", info.id}, {"sha", info.sha}, {"lastModified", info.last_modified}};
  doc["gated"] = info.gated.empty() || info.gated == "false" ? json(false) : json(info.gated);
  if (info.downloads) doc["downloads"] = *info.downloads;
  if (info.likes) doc["likes"] = *info.likes;
  if (info.safetensors_total) doc["safetensors"] = {{"total", *info.safetensors_total}};
  return doc.dump(2) + "\n";
}

}  // namespace neurarch::hub
