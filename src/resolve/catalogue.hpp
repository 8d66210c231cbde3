#pragma once
// The bundled catalogue: real published config.json files compiled into the binary
// (generated from data/catalogue/ by cmake/EmbedCatalogue.cmake).
#include <string_view>
#include <vector>

namespace neurarch::resolve {

struct CatalogueEntry {
  std::string_view id;           ///< Hub id, "facebook/dinov2-small" ("gpt2" for org-less ids)
  std::string_view config_json;  ///< the file's exact bytes
};

const std::vector<CatalogueEntry>& catalogue_entries();

}  // namespace neurarch::resolve
