#pragma once
// `neurarch-trace MODEL --share`: sends the model's config and the planner options to a neurarch
// server, which traces and stores the report, and prints the permanent link it answers with.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace neurarch::cli {

/// The server named by --server, else $NEURARCH_SERVER; "" when neither is set.
std::string share_server(const std::string& option);

/// POSTs {"config", "name", options...} to <server>/api/v1/share and prints "<server>/p/<id>" on
/// `out`. Returns 0, 2 when the server refuses the request (its message on `err`), or 5 when it
/// cannot be reached or fails.
int share_report(const std::string& server, const nlohmann::json& config, const std::string& name,
                 const nlohmann::json& options, std::ostream& out, std::ostream& err);

}  // namespace neurarch::cli
