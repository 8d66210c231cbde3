#include "server/route_groups.hpp"

namespace neurarch::server {

const std::vector<RouteGroup>& route_groups() {
  static const std::vector<RouteGroup> groups = {
      register_page_routes,
      register_model_routes,
      register_api_routes,
      register_share_routes,
      // change-tracker route groups
      register_change_routes,
  };
  return groups;
}

}  // namespace neurarch::server
