#pragma once
// Answers every route gives the same way: JSON errors {"error": {"code", "message"}}, HTML pages
// in the site's layout, and the rate limit on POST routes.
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/context.hpp"

namespace neurarch::server {

/// Headers every response carries: a CSP without inline script or style, no sniffing, no framing.
httplib::Headers security_headers();

void send_json(httplib::Response& res, int status, const std::string& body);
void send_json_error(httplib::Response& res, int status, const std::string& code, const std::string& message);
/// An HTML error page with the same status (for browser routes).
void send_html_error(httplib::Response& res, int status, const std::string& message);
/// Where the navigation's "See it" leads when a page has no diagram of its own: the bundled default
/// model's diagram.
inline const std::string kSeeItDefault = "/models/facebook/dinov2-small#see-it";
void send_page(httplib::Response& res, const std::string& title, const std::string& body_html, int status = 200,
               const std::string& see_it = kSeeItDefault);
/// The whole document around a body: header, stylesheet and script links, footer; `see_it` is the
/// navigation's "See it" link (a model page's own diagram, else the default model's).
std::string page(const std::string& title, const std::string& body_html, const std::string& see_it = kSeeItDefault);
/// "code" for a status with no more specific one ("payload_too_large" for 413, ...).
std::string status_code_name(int status);

/// Spends one of the client's POST tokens; when none is left, answers 429 with Retry-After and
/// returns false.
bool admit_post(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, bool json);

}  // namespace neurarch::server
