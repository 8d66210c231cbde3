#pragma once
// The body of POST /api/v1/plan and /api/v1/share: {"model": "org/name"} or {"config": {...},
// "name": "label"?}, plus the planner's options as further keys.
#include <memory>
#include <optional>
#include <string>

#include <httplib.h>

#include "server/context.hpp"

namespace neurarch::server {

struct PlanBody {
  std::optional<std::string> model;        ///< a Hub id the server resolves offline
  std::optional<std::string> config_text;  ///< a pasted config.json
  std::string label = "pasted config";     ///< the report's name for a pasted config
  RequestOptions options;
};

/// Throws ServiceError: 415 not JSON, 400 malformed JSON or body shape, 400 bad option.
PlanBody parse_plan_body(const httplib::Request& req);
/// Throws ServiceError as ReportService does.
std::shared_ptr<const CachedReport> report_for(ServerContext& ctx, const PlanBody& body);
/// Stores the report as shared (its JSON, HTML and markdown as they are now); returns the id.
std::string publish(ServerContext& ctx, const CachedReport& cached);

}  // namespace neurarch::server
