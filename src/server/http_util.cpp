#include "server/http_util.hpp"

#include <fmt/format.h>

namespace neurarch::server {

httplib::Headers security_headers() {
  return {
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cross-Origin-Opener-Policy", "same-origin"},
      {"Permissions-Policy", "camera=(), microphone=(), geolocation=()"},
  };
}

std::string status_code_name(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 408: return "request_timeout";
    case 413: return "payload_too_large";
    case 414: return "uri_too_long";
    case 415: return "unsupported_media_type";
    case 422: return "unprocessable";
    case 429: return "rate_limited";
    case 503: return "unavailable";
    default: return status >= 500 ? "internal" : "error";
  }
}

void send_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "application/json; charset=utf-8");
}

void send_json_error(httplib::Response& res, int status, const std::string& code, const std::string& message) {
  send_json(res, status, nlohmann::json{{"error", {{"code", code}, {"message", message}}}}.dump());
}

std::string page(const std::string& title, const std::string& body_html, const std::string& see_it) {
  return fmt::format(
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>{} · neurarch</title><link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" "
      "href=\"/static/html.css\"><script src=\"/static/app.js\" defer></script></head><body><header "
      "class=\"site-header\"><a class=\"brand\" href=\"/\">neurarch</a><nav><a href=\"/\">Try it</a><a "
      "href=\"{}\">See it</a><a href=\"/cards\">Cards</a><a href=\"/index.json\">Index</a></nav></header><main>{}</main><footer "
      "class=\"site-footer\">Derived from config.json alone: no weights are downloaded. Memory is a model of a "
      "PyTorch training step; see the <a href=\"/cards\">card catalogue</a> for what it is priced on.</footer>"
      "</body></html>",
      render::html_escape(title), render::html_escape(see_it), body_html);
}

void send_page(httplib::Response& res, const std::string& title, const std::string& body_html, int status,
               const std::string& see_it) {
  res.status = status;
  res.set_content(page(title, body_html, see_it), "text/html; charset=utf-8");
}

void send_html_error(httplib::Response& res, int status, const std::string& message) {
  send_page(res, fmt::format("{} {}", status, status_code_name(status)),
            fmt::format("<div class=\"error-page\"><h1>{}</h1><p>{}</p><p><a href=\"/\">Back to the start page</a></p></div>",
                        status == 404 ? "Not found" : status == 429 ? "Slow down" : "That did not work",
                        render::html_escape(message)),
            status);
}

bool admit_post(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, bool json) {
  const auto wait = ctx.post_limiter.acquire(req.remote_addr);
  if (!wait) return true;
  res.set_header("Retry-After", std::to_string(*wait));
  const std::string message = fmt::format("too many requests from your address; retry in {} s", *wait);
  if (json)
    send_json_error(res, 429, "rate_limited", message);
  else
    send_html_error(res, 429, message);
  return false;
}

}  // namespace neurarch::server
