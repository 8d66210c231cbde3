// The model pages: /models/{org}/{name} (HTML), its .md and .json twins, its diagram.svg, and the badge.
#include <optional>

#include <fmt/format.h>

#include "server/headline.hpp"
#include "server/http_util.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {
namespace {

enum class Format { Html, Markdown, Json, Svg };

// Hub names may contain '.', so a trailing ".md"/".json" is read as the format, as the Hub's own
// raw-file URLs would be.
Format split_format(std::string& name) {
  if (name.size() > 3 && name.ends_with(".md")) {
    name.resize(name.size() - 3);
    return Format::Markdown;
  }
  if (name.size() > 5 && name.ends_with(".json")) {
    name.resize(name.size() - 5);
    return Format::Json;
  }
  return Format::Html;
}

void send_error(httplib::Response& res, Format f, int status, const std::string& code, const std::string& message) {
  if (f == Format::Html)
    send_html_error(res, status, message);
  else
    send_json_error(res, status, code, message);
}

std::string twins(const std::string& base, const std::string& query, const std::string& badge) {
  const std::string q = query.empty() ? "" : "?" + query;
  return fmt::format(
      "<p class=\"twins\"><a href=\"{0}.md{1}\" type=\"text/markdown\">Markdown</a><a href=\"{0}.json{1}\" "
      "type=\"application/json\">JSON</a><a href=\"{0}/diagram.svg{1}\" type=\"image/svg+xml\">SVG</a>{2}</p>",
      render::html_escape(base), render::html_escape(q),
      badge.empty() ? "" : fmt::format("<a href=\"{}\" type=\"application/json\">Badge</a>", render::html_escape(badge)));
}

void model_page(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, const std::string& org,
                std::string name, std::optional<Format> forced = std::nullopt) {
  const Format format = forced ? *forced : split_format(name);
  const std::string id = org.empty() ? name : org + "/" + name;
  try {
    const auto options = options_from_query(req.params);
    const auto cached = ctx.reports.for_model(id, options);
    switch (format) {
      case Format::Json: send_json(res, 200, cached->json()); return;
      case Format::Markdown: res.set_content(cached->markdown(), "text/markdown; charset=utf-8"); return;
      case Format::Svg: res.set_content(cached->diagram(), "image/svg+xml; charset=utf-8"); return;
      case Format::Html: break;
    }
    std::optional<std::vector<render::ChangeRow>> changes;
    if (ctx.change_history) changes = ctx.change_history(cached->report().model.id);
    const std::string body = changes ? render::html(cached->report(), {changes, cached->command()}) : cached->html_fragment();
    send_page(res, id, twins("/models/" + id, options.query, "/api/v1/badge/" + id) + body, 200, "#see-it");
  } catch (const OptionError& e) {
    send_error(res, format, 400, "invalid_option", e.what());
  } catch (const ServiceError& e) {
    send_error(res, format, e.status, e.code, e.message);
  }
}

void badge(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, const std::string& id) {
  try {
    const auto cached = ctx.reports.for_model(id, options_from_query(req.params));
    // shields.io caches by this; a badge is a headline, not a live figure.
    res.set_header("Cache-Control", "public, max-age=3600");
    send_json(res, 200, badge_json(cached->report()).dump());
  } catch (const OptionError& e) {
    send_json_error(res, 400, "invalid_option", e.what());
  } catch (const ServiceError& e) {
    send_json_error(res, e.status, e.code, e.message);
  }
}

}  // namespace

void register_model_routes(httplib::Server& http, ServerContext& ctx) {
  // Before the page routes, which would read "diagram.svg" as a model name.
  http.Get(R"(/models/([^/]+)/([^/]+)/diagram\.svg)", [&ctx](const httplib::Request& req, httplib::Response& res) {
    model_page(ctx, req, res, req.matches[1], req.matches[2], Format::Svg);
  });
  http.Get(R"(/models/([^/]+)/diagram\.svg)", [&ctx](const httplib::Request& req, httplib::Response& res) {
    model_page(ctx, req, res, "", req.matches[1], Format::Svg);
  });
  http.Get(R"(/models/([^/]+)/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    model_page(ctx, req, res, req.matches[1], req.matches[2]);
  });
  // Org-less legacy ids ("gpt2", "bert-base-uncased").
  http.Get(R"(/models/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    model_page(ctx, req, res, "", req.matches[1]);
  });
  http.Get(R"(/api/v1/badge/([^/]+)/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    badge(ctx, req, res, std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
  });
  http.Get(R"(/api/v1/badge/([^/]+))", [&ctx](const httplib::Request& req, httplib::Response& res) {
    badge(ctx, req, res, req.matches[1]);
  });
}

}  // namespace neurarch::server
