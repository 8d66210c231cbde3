// The change tracker's routes: a model's history, one advisory, the feed of every tracked change
// (JSON and Atom) and the "last breaking change" badge. Without a tracker store they answer 404.
#include <chrono>

#include "resolve/resolver.hpp"
#include "server/http_util.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {
namespace {

constexpr const char* kNoTracker = "this server has no change-tracker store (run `neurarch-trace track` first)";

std::string repo_of(const httplib::Request& req) { return req.matches[1].str() + "/" + req.matches[2].str(); }

track::FeedOptions feed_options(const ServerContext& ctx, const httplib::Request& req) {
  track::FeedOptions o;
  o.breaking_only = req.get_param_value("breaking") == "true" || req.get_param_value("breaking") == "1";
  o.base_url = "http://" + ctx.options.host + ":" + std::to_string(ctx.options.port);
  if (req.has_param("limit")) {
    const auto text = req.get_param_value("limit");
    std::size_t limit = 0;
    for (char ch : text) {
      if (ch < '0' || ch > '9' || limit > 1000) return o;
      limit = limit * 10 + static_cast<std::size_t>(ch - '0');
    }
    if (limit >= 1 && limit <= 1000) o.limit = limit;
  }
  return o;
}

void send_atom(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!ctx.changes) return send_json_error(res, 404, "not_found", kNoTracker);
  res.status = 200;
  res.set_content(ctx.changes->feed_atom(feed_options(ctx, req)), "application/atom+xml; charset=utf-8");
}

}  // namespace

void register_change_routes(httplib::Server& http, ServerContext& ctx) {
  http.Get(R"(/models/([^/]+)/([^/]+)/changes)", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!ctx.changes) return send_json_error(res, 404, "not_found", kNoTracker);
    const auto repo = repo_of(req);
    if (!resolve::is_hub_repo_id(repo)) return send_json_error(res, 400, "invalid_model_id", "not a Hugging Face model id");
    auto history = ctx.changes->history(repo);
    if (!history) return send_json_error(res, 404, "not_found", repo + " is not tracked by this server");
    send_json(res, 200, history->dump());
  });
  http.Get(R"(/api/v1/advisories/([A-Za-z0-9._-]{1,128}))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!ctx.changes) return send_json_error(res, 404, "not_found", kNoTracker);
    auto advisory = ctx.changes->advisory(req.matches[1].str());
    if (!advisory) return send_json_error(res, 404, "not_found", "no such advisory");
    send_json(res, 200, advisory->dump());
  });
  http.Get("/changes", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Accept").find("application/atom+xml") != std::string::npos)
      return send_atom(ctx, req, res);
    if (!ctx.changes) return send_json_error(res, 404, "not_found", kNoTracker);
    send_json(res, 200, ctx.changes->feed(feed_options(ctx, req)).dump());
  });
  http.Get("/changes.atom", [&ctx](const httplib::Request& req, httplib::Response& res) { send_atom(ctx, req, res); });
  http.Get(R"(/api/v1/badge/changes/([^/]+)/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!ctx.changes) return send_json_error(res, 404, "not_found", kNoTracker);
    const auto repo = repo_of(req);
    if (!resolve::is_hub_repo_id(repo)) return send_json_error(res, 400, "invalid_model_id", "not a Hugging Face model id");
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    auto badge = ctx.changes->badge(repo, now);
    if (!badge) return send_json_error(res, 404, "not_found", repo + " is not tracked by this server");
    send_json(res, 200, badge->dump());
  });
}

}  // namespace neurarch::server
