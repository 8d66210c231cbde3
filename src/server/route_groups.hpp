#pragma once
// Each group of routes lives in its own routes_*.cpp and registers itself here; the server calls
// every group in route_groups() in order. A new group (e.g. the change tracker's) is one new file
// and one line in route_groups.cpp.
#include <vector>

#include <httplib.h>

#include "server/context.hpp"

namespace neurarch::server {

using RouteGroup = void (*)(httplib::Server&, ServerContext&);

void register_page_routes(httplib::Server& http, ServerContext& ctx);    // /, /try, /go, /cards, /static
void register_model_routes(httplib::Server& http, ServerContext& ctx);   // /models/..., /api/v1/badge/...
void register_api_routes(httplib::Server& http, ServerContext& ctx);     // /api/v1/plan, /index.json
void register_share_routes(httplib::Server& http, ServerContext& ctx);   // /api/v1/share, /p/{id}

void register_change_routes(httplib::Server& http, ServerContext& ctx);  // /changes, advisories, history

const std::vector<RouteGroup>& route_groups();

}  // namespace neurarch::server
