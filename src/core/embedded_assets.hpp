#pragma once
// Web assets (CSS, JS) compiled into the binary from src/**/*.css|js by cmake/Server.cmake, so
// the server serves them as files (no inline script or style under its CSP) from any folder.
#include <string_view>

namespace neurarch {

/// The file's bytes by its name ("html.css", "app.js"); empty when there is no such asset.
std::string_view embedded_asset(std::string_view name);

}  // namespace neurarch
