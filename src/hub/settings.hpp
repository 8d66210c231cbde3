#pragma once
// Where the Hub client talks to and as whom: explicit options first, then the environment
// variables huggingface_hub reads, so both tools behave alike on one machine.
#include <filesystem>
#include <string>

#include "hub/hub.hpp"

namespace neurarch::hub {

inline constexpr const char* kDefaultEndpoint = "https://huggingface.co";

struct Settings {
  std::string endpoint;  ///< no trailing slash
  std::string token;     ///< "" sends no Authorization header
  std::filesystem::path cache_dir;
  bool offline = false;
  NetworkPolicy network;
};

Settings resolve_settings(const HubOptions& options);

/// huggingface_hub's truthy spellings ("1", "ON", "YES", "TRUE", any case).
bool env_flag(const char* name);

/// $HF_TOKEN (or the legacy $HUGGING_FACE_HUB_TOKEN), else the token file: $HF_TOKEN_PATH,
/// else $HF_HOME/token, else ~/.cache/huggingface/token. "" when none.
std::string find_token();

}  // namespace neurarch::hub
