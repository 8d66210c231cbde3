// libFuzzer target for what a client sends the server: a POST body (JSON -> body shape -> options ->
// report -> the share store) or, when the input starts with '?', a query string (-> options). Every
// input must end in an answer or a ServiceError / OptionError with a 4xx status, never a crash, a
// hang, a 5xx or another exception; a shared report reads back byte for byte (JSON, page, Markdown).
#include <cstdint>
#include <cstdlib>
#include <string>

#include <httplib.h>

#include "server/plan_body.hpp"
#include "server/request_options.hpp"
#include "server/share_store.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

struct Services {
  neurarch::server::ServerOptions options;
  // No model cache: ids resolve against the bundled catalogue only, as a fresh server's do.
  neurarch::server::ReportService reports{std::filesystem::path("/nonexistent/neurarch-fuzz-cache"), 16,
                                          {1 << 15, 1 << 15, std::chrono::milliseconds(5000), 1 << 18}};
  neurarch::server::ShareStore shares{":memory:"};
  neurarch::server::RateLimiter limiter{1e9, 1e9, 16};
  neurarch::server::ServerContext ctx{options, reports, shares, limiter, {}, nullptr};
};

void body(Services& s, const std::string& text) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/api/v1/plan";
  req.set_header("Content-Type", "application/json");
  req.body = text;
  try {
    const auto cached = neurarch::server::report_for(s.ctx, neurarch::server::parse_plan_body(req));
    (void)cached->markdown();
    const std::string id = neurarch::server::publish(s.ctx, *cached);
    const auto shared = s.shares.get(id);
    // What a link shows is what was shared: a second report that renders alike in JSON but not on its
    // page (another command line) must not get the first one's link.
    check(shared && shared->report_json == cached->json() && shared->page_html == cached->html_fragment() &&
          shared->page_markdown == cached->markdown() && shared->model == cached->report().model.id);
  } catch (const neurarch::server::ServiceError& e) {
    check(e.status >= 400 && e.status < 500 && e.message.find('\n') == std::string::npos);
  }
}

void query(const std::string& text) {
  httplib::Params params;
  httplib::detail::parse_query_text(text, params);
  try {
    (void)neurarch::server::options_from_query(params);
  } catch (const neurarch::server::OptionError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Services services;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!text.empty() && text.front() == '?') query(text.substr(1));
  else body(services, text);
  return 0;
}
