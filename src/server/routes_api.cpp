// The JSON API: POST /api/v1/plan and the index of every model the server knows.
#include "server/headline.hpp"
#include "server/http_util.hpp"
#include "server/plan_body.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {

void register_api_routes(httplib::Server& http, ServerContext& ctx) {
  http.Post("/api/v1/plan", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admit_post(ctx, req, res, true)) return;
    try {
      send_json(res, 200, report_for(ctx, parse_plan_body(req))->json());
    } catch (const ServiceError& e) {
      send_json_error(res, e.status, e.code, e.message);
    }
  });
  http.Get("/api/v1/plan", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST");
    send_json_error(res, 405, "method_not_allowed", "POST a JSON body: {\"model\": \"org/name\"} or {\"config\": {...}}");
  });

  http.Get("/index.json", [&ctx](const httplib::Request&, httplib::Response& res) {
    const auto defaults = default_request_options();
    nlohmann::json models = nlohmann::json::array();
    for (const auto& id : ctx.reports.known_ids()) {
      try {
        auto entry = index_entry(ctx.reports.for_model(id, defaults)->report());
        entry["id"] = id;  // the id it is listed under, even when the report names the canonical one
        entry["url"] = "/models/" + id;
        models.push_back(std::move(entry));
      } catch (const ServiceError& e) {
        models.push_back({{"id", id}, {"url", "/models/" + id}, {"error", {{"code", e.code}, {"message", e.message}}}});
      }
    }
    send_json(res, 200, nlohmann::json{{"schema", "neurarch.index/v1"}, {"models", std::move(models)}}.dump());
  });
}

}  // namespace neurarch::server
