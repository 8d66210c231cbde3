#include "server/plan_body.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/json_depth.hpp"
#include "core/limits.hpp"

namespace neurarch::server {
namespace {
constexpr std::size_t kMaxLabel = 200;

bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
}
}  // namespace

PlanBody parse_plan_body(const httplib::Request& req) {
  const std::string type = req.get_header_value("Content-Type");
  if (type.rfind("application/json", 0) != 0)
    throw ServiceError{415, "unsupported_media_type", "send the body as application/json"};
  if (nested_deeper_than(req.body, limits::kMaxJsonDepth))
    throw ServiceError{400, "invalid_json", fmt::format("the body nests deeper than {} levels", limits::kMaxJsonDepth)};
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(req.body);
  } catch (const nlohmann::json::parse_error& e) {
    throw ServiceError{400, "invalid_json", fmt::format("the body is not JSON (byte {})", e.byte)};
  } catch (const nlohmann::json::exception&) {
    // Good syntax that no double holds (1e400): nlohmann throws out_of_range, not parse_error.
    throw ServiceError{400, "invalid_json", "the body holds a number out of range"};
  }
  if (!body.is_object()) throw ServiceError{400, "invalid_request", "the body must be a JSON object"};
  const bool has_model = body.contains("model"), has_config = body.contains("config");
  if (has_model == has_config)
    throw ServiceError{400, "invalid_request", "give exactly one of \"model\" (an org/name id) and \"config\" (a config.json object)"};
  PlanBody out;
  if (has_model) {
    if (!body["model"].is_string()) throw ServiceError{400, "invalid_request", "model: must be a string"};
    out.model = body["model"].get<std::string>();
  } else {
    if (!body["config"].is_object()) throw ServiceError{400, "invalid_request", "config: must be a JSON object (the config.json)"};
    out.config_text = body["config"].dump();
  }
  if (body.contains("name")) {
    if (!body["name"].is_string() || body["name"].get<std::string>().size() > kMaxLabel || !printable(body["name"]))
      throw ServiceError{400, "invalid_request", fmt::format("name: must be printable text of at most {} characters", kMaxLabel)};
    if (has_model) throw ServiceError{400, "invalid_request", "name: only with \"config\"; a model is named by its id"};
    if (!body["name"].get<std::string>().empty()) out.label = body["name"].get<std::string>();
  }
  try {
    out.options = options_from_json(body, {"model", "config", "name"});
  } catch (const OptionError& e) {
    throw ServiceError{400, "invalid_option", e.what()};
  }
  return out;
}

std::shared_ptr<const CachedReport> report_for(ServerContext& ctx, const PlanBody& body) {
  if (body.model) return ctx.reports.for_model(*body.model, body.options);
  return ctx.reports.for_config(*body.config_text, body.options, body.label);
}

std::string publish(ServerContext& ctx, const CachedReport& cached) {
  return ctx.shares.put(cached.report().model.id, cached.json(), cached.html_fragment(), cached.markdown());
}

}  // namespace neurarch::server
