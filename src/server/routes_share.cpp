// Shared reports: POST /api/v1/share stores one, /p/{id} (and .md, .json) show it for good.
#include <fmt/format.h>

#include "server/http_util.hpp"
#include "server/plan_body.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {

void register_share_routes(httplib::Server& http, ServerContext& ctx) {
  // The server traces what it stores: a link shows the server's own figures for a config, never
  // figures a client typed in.
  http.Post("/api/v1/share", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!admit_post(ctx, req, res, true)) return;
    try {
      const auto cached = report_for(ctx, parse_plan_body(req));
      const std::string id = publish(ctx, *cached);
      res.set_header("Location", "/p/" + id);
      send_json(res, 201, nlohmann::json{{"id", id}, {"path", "/p/" + id}}.dump());
    } catch (const ServiceError& e) {
      send_json_error(res, e.status, e.code, e.message);
    }
  });

  http.Get(R"(/p/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    std::string id = req.matches[1];
    enum { Html, Markdown, Json } format = Html;
    if (id.ends_with(".json")) {
      format = Json;
      id.resize(id.size() - 5);
    } else if (id.ends_with(".md")) {
      format = Markdown;
      id.resize(id.size() - 3);
    }
    const auto shared = ctx.shares.get(id);
    if (!shared) {
      const std::string message = ShareStore::is_valid_id(id) ? "no report was shared under this link"
                                                              : "a shared report's id is 32 hexadecimal digits";
      const int status = ShareStore::is_valid_id(id) ? 404 : 400;
      if (format == Html) return send_html_error(res, status, message);
      return send_json_error(res, status, status == 404 ? "not_found" : "invalid_id", message);
    }
    // Content-addressed: what is behind a link never changes.
    res.set_header("Cache-Control", "public, max-age=31536000, immutable");
    if (format == Json) return send_json(res, 200, shared->report_json);
    if (format == Markdown) return res.set_content(shared->page_markdown, "text/markdown; charset=utf-8");
    send_page(res, shared->model,
              fmt::format("<p class=\"twins\">shared {0} · <a href=\"/p/{1}.md\">Markdown</a><a href=\"/p/{1}.json\">JSON</a></p>{2}",
                          render::html_escape(shared->created_at), id, shared->page_html),
              200,
              // A report shared before diagrams existed is stored without one.
              shared->page_html.find("id=\"see-it\"") != std::string::npos ? "#see-it" : kSeeItDefault);
  });
}

}  // namespace neurarch::server
