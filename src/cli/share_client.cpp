#include "cli/share_client.hpp"

#include <cstdlib>
#include <ostream>

#include <fmt/format.h>
#include <httplib.h>

namespace neurarch::cli {

std::string share_server(const std::string& option) {
  if (!option.empty()) return option;
  const char* env = std::getenv("NEURARCH_SERVER");
  return env ? env : "";
}

int share_report(const std::string& server, const nlohmann::json& config, const std::string& name,
                 const nlohmann::json& options, std::ostream& out, std::ostream& err) {
  // "scheme://host[:port][/prefix]": httplib's client takes the origin, the prefix goes on the path.
  std::string base = server;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto scheme_end = base.find("://");
  if (scheme_end == std::string::npos || (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0)) {
    err << "neurarch-trace: error: --server " << server << ": expected an http:// or https:// URL\n";
    return 2;
  }
  const auto path_start = base.find('/', scheme_end + 3);
  const std::string origin = base.substr(0, path_start);
  const std::string prefix = path_start == std::string::npos ? "" : base.substr(path_start);

  nlohmann::json body = options;
  body["config"] = config;
  body["name"] = name;
  httplib::Client client(origin);
  client.set_connection_timeout(10);
  client.set_read_timeout(60);
  client.set_follow_location(false);
  auto res = client.Post(prefix + "/api/v1/share", body.dump(), "application/json");
  if (!res) {
    err << "neurarch-trace: error: " << origin << ": cannot reach the server (" << httplib::to_string(res.error()) << ")\n";
    return 5;
  }
  nlohmann::json answer = nlohmann::json::parse(res->body, nullptr, false);
  if (res->status != 201 || answer.is_discarded() || !answer.contains("path")) {
    std::string message = answer.is_object() && answer.contains("error") ? answer["error"].value("message", "")
                                                                            : std::string("unexpected answer");
    err << "neurarch-trace: error: " << server << " refused the report (HTTP " << res->status << "): " << message << "\n";
    return res->status >= 400 && res->status < 500 ? 2 : 5;
  }
  out << base << answer["path"].get<std::string>() << "\n" << std::flush;
  return 0;
}

}  // namespace neurarch::cli
