#include "hub/settings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>

namespace neurarch::hub {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1));
}

// huggingface_hub expands "~" in these variables, so a quoted "~/hf" must work here too.
fs::path expand_home(const std::string& value) {
  if (value == "~" || value.starts_with("~/")) {
    if (const auto home = env("HOME")) return fs::path(*home) / value.substr(std::min<std::size_t>(2, value.size()));
  }
  return value;
}

std::optional<fs::path> token_file() {
  if (const auto path = env("HF_TOKEN_PATH")) return expand_home(*path);
  if (const auto hf_home = env("HF_HOME")) return expand_home(*hf_home) / "token";
  if (const auto xdg = env("XDG_CACHE_HOME")) return fs::path(*xdg) / "huggingface" / "token";
  if (const auto home = env("HOME")) return fs::path(*home) / ".cache" / "huggingface" / "token";
  return std::nullopt;
}

}  // namespace

bool env_flag(const char* name) {
  const auto value = env(name);
  if (!value) return false;
  std::string lower = trimmed(*value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  constexpr std::array<std::string_view, 4> kTrue{"1", "on", "yes", "true"};
  return std::find(kTrue.begin(), kTrue.end(), lower) != kTrue.end();
}

std::string find_token() {
  if (const auto token = env("HF_TOKEN")) return trimmed(*token);
  if (const auto legacy = env("HUGGING_FACE_HUB_TOKEN")) return trimmed(*legacy);
  const auto file = token_file();
  if (!file) return {};
  std::ifstream in(*file, std::ios::binary);
  if (!in) return {};
  std::string text(4096, '\0');  // tokens are tens of bytes; more is not a token file
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return trimmed(text);
}

Settings resolve_settings(const HubOptions& options) {
  Settings s;
  s.endpoint = !options.endpoint.empty() ? options.endpoint : env("HF_ENDPOINT").value_or(kDefaultEndpoint);
  while (s.endpoint.size() > 1 && s.endpoint.back() == '/') s.endpoint.pop_back();
  s.token = options.token ? trimmed(*options.token) : find_token();
  s.cache_dir = !options.cache_dir.empty() ? options.cache_dir : resolve::default_hub_cache();
  s.offline = options.offline || env_flag("HF_HUB_OFFLINE");
  s.network = options.network;
  return s;
}

}  // namespace neurarch::hub
