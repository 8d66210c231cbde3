#include "server/server.hpp"

#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <httplib.h>

#include "core/error.hpp"
#include "server/bounded_pool.hpp"
#include "server/http_util.hpp"
#include "server/route_groups.hpp"

namespace neurarch::server {
namespace {

bool wants_json(const httplib::Request& req) {
  return req.path.rfind("/api/", 0) == 0 || req.path.ends_with(".json") ||
         req.get_header_value("Accept").find("application/json") != std::string::npos;
}

}  // namespace

Server::Server(ServerOptions options, ChangeHistoryProvider changes) : options_(std::move(options)) {
  reports_ = std::make_unique<ReportService>(options_.hub_cache, options_.cache_entries, options_.budget);
  try {
    shares_ = std::make_unique<ShareStore>(options_.db_path);
  } catch (const std::exception& e) {
    throw Error(ErrorKind::Io, options_.db_path, fmt::format("cannot open the share database: {}", e.what()));
  }
  limiter_ = std::make_unique<RateLimiter>(options_.post_per_minute, options_.post_burst, options_.rate_limit_clients);
  if (!options_.changes_db.empty()) {
    try {
      changes_ = std::make_unique<ChangeService>(options_.changes_db);
    } catch (const std::exception& e) {
      throw Error(ErrorKind::Io, options_.changes_db, fmt::format("cannot open the change-tracker store: {}", e.what()));
    }
    if (!changes)
      changes = [service = changes_.get()](const std::string& model_id) { return service->rows(model_id); };
  }
  context_ = std::make_unique<ServerContext>(
      ServerContext{options_, *reports_, *shares_, *limiter_, std::move(changes), changes_.get()});
  http_ = std::make_unique<httplib::Server>();
  auto& http = *http_;

  const auto threads = options_.threads, queue = options_.queue_limit;
  http.new_task_queue = [threads, queue] { return new BoundedPool(threads, queue); };
  // Headers and body go out in separate writes; without this, Nagle plus delayed ACKs add ~40 ms
  // to every keep-alive response.
  http.set_tcp_nodelay(true);
  http.set_payload_max_length(options_.max_body_bytes);
  http.set_read_timeout(options_.read_timeout);
  http.set_write_timeout(options_.write_timeout);
  http.set_keep_alive_timeout(options_.keep_alive_timeout.count());
  http.set_keep_alive_max_count(options_.keep_alive_max_requests);
  http.set_default_headers(security_headers());

  // Statuses httplib sets itself (404 no route, 413 body too large, 400 bad request line) get the
  // same body shape as the routes' own errors.
  http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = res.status == 413   ? "the request body is larger than this server accepts (1 MiB)"
                          : res.status == 404 ? "no such page"
                                              : "the request could not be served";
    if (wants_json(req))
      send_json_error(res, res.status, status_code_name(res.status), message);
    else
      send_html_error(res, res.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));
  // Whatever escapes a route is logged here and answered without detail: no stack traces, no paths.
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      std::cerr << "neurarch serve: " << req.method << " " << req.path << ": " << e.what() << "\n";
    } catch (...) {
      std::cerr << "neurarch serve: " << req.method << " " << req.path << ": unknown exception\n";
    }
    if (wants_json(req))
      send_json_error(res, 500, "internal", "internal error");
    else
      send_html_error(res, 500, "internal error");
  });
  if (options_.access_log)
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::cerr << fmt::format("{} {} {} {}\n", req.remote_addr, req.method, req.path, res.status);
    });

  for (auto group : route_groups()) group(http, *context_);
}

Server::~Server() { stop(); }

int Server::bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
  } else if (!http_->bind_to_port(options_.host, port)) {
    port = -1;
  }
  if (port < 0) throw Error(ErrorKind::Io, fmt::format("{}:{}", options_.host, options_.port), "cannot listen there");
  return port;
}

void Server::run() { http_->listen_after_bind(); }

void Server::stop() {
  if (http_) http_->stop();
}

bool Server::running() const { return http_ && http_->is_running(); }

}  // namespace neurarch::server
