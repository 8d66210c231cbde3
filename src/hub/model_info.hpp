#pragma once
// The Hub's model-info API answer, reduced to the facts neurarch shows, and its cached form.
#include <optional>
#include <string>
#include <string_view>

#include "hub/hub.hpp"

namespace neurarch::hub {

/// Parses /api/models/{repo}[/revision/{rev}]. Fields of the wrong type read as absent: this is
/// a second opinion, never a reason to fail. nullopt when the text is not a JSON object.
std::optional<ModelInfo> parse_model_info(std::string_view json_text);

/// The cached form (the same field names as the API, so either parses with parse_model_info).
std::string model_info_json(const ModelInfo& info);

}  // namespace neurarch::hub
