#pragma once
// data/*.json compiled into the binary (cmake/EmbedCatalogue.cmake).
#include <string_view>

namespace neurarch {

/// The bytes of data/<name> ("cards.json"), or an empty view when there is no such file.
std::string_view embedded_data(std::string_view name);

}  // namespace neurarch
