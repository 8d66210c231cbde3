#pragma once
// What every route group shares. Route groups (routes_*.cpp) register themselves on the
// httplib::Server through this and nothing else, so a new group never touches the others.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "render/render.hpp"
#include "server/change_service.hpp"
#include "server/options.hpp"
#include "server/rate_limiter.hpp"
#include "server/report_service.hpp"
#include "server/share_store.hpp"

namespace neurarch::server {

/// A model's change history for its page: rows (maybe none yet), or nullopt when the model is not
/// tracked. Supplied by the change tracker when it is linked in; empty function: no section.
using ChangeHistoryProvider = std::function<std::optional<std::vector<render::ChangeRow>>(const std::string& model_id)>;

struct ServerContext {
  const ServerOptions& options;
  ReportService& reports;
  ShareStore& shares;
  RateLimiter& post_limiter;
  ChangeHistoryProvider change_history;
  ChangeService* changes = nullptr;  ///< the tracker's store; nullptr when the server has none
};

}  // namespace neurarch::server
