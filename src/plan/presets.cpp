#include "plan/presets.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.hpp"
#include "core/error.hpp"

namespace neurarch::plan {
namespace {

constexpr const char* kOrigin = "data/setups.json";

// "4.27.1" -> {4, 27, 1}; non-digits end a component.
std::vector<int> version_parts(std::string_view v) {
  std::vector<int> parts{0};
  for (char c : v) {
    if (c == '.') parts.push_back(0);
    else if (c >= '0' && c <= '9') parts.back() = parts.back() * 10 + (c - '0');
    else break;
  }
  return parts;
}

struct Data {
  std::vector<Era> eras;
  std::vector<Preset> presets;  ///< per framework, oldest `from` first
};

std::map<std::string, std::string> text_map(const nlohmann::json& j) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

Data load() {
  Data d;
  try {
    const auto j = nlohmann::json::parse(embedded_data("setups.json"));
    for (const auto& [name, e] : j.at("eras").items())
      d.eras.push_back({name, e.at("cuda_context_bytes").get<std::int64_t>(), e.at("keep_gradients").get<bool>(),
                        e.at("optimizer_foreach").get<bool>(), e.at("softmax_saves_input").get<bool>(),
                        e.at("source").get<std::string>()});
    for (const auto& [framework, f] : j.at("frameworks").items()) {
      for (const auto& v : f.at("versions")) {
        Preset p;
        p.framework = framework;
        p.from = v.at("from").get<std::string>();
        p.era = v.at("era").get<std::string>();
        p.settings = text_map(v.at("settings"));
        if (v.contains("qlora_settings")) p.qlora_settings = text_map(v["qlora_settings"]);
        if (v.contains("lora_targets"))
          for (const auto& [k, names] : v["lora_targets"].items()) p.lora_targets[k] = names.get<std::vector<std::string>>();
        p.source = v.at("source").get<std::string>();
        d.presets.push_back(std::move(p));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::InvalidInput, kOrigin, e.what());
  }
  std::stable_sort(d.presets.begin(), d.presets.end(), [](const Preset& a, const Preset& b) {
    return a.framework != b.framework ? a.framework < b.framework : version_parts(a.from) < version_parts(b.from);
  });
  return d;
}

const Data& data() {
  static const Data d = load();
  return d;
}

}  // namespace

const Preset& find_preset(std::string_view spec) {
  const auto at = spec.find('@');
  const std::string_view name = spec.substr(0, at);
  const Preset* found = nullptr;
  for (const auto& p : data().presets) {
    if (p.framework != name) continue;
    if (at != std::string_view::npos && version_parts(p.from) > version_parts(spec.substr(at + 1))) continue;
    found = &p;  // oldest first: the last match is the newest that applies
  }
  if (!found) throw Error(ErrorKind::InvalidInput, "framework", fmt::format("no preset for '{}' in {}", spec, kOrigin));
  return *found;
}

const Era& find_era(std::string_view name) {
  for (const auto& e : data().eras)
    if (e.name == name) return e;
  throw Error(ErrorKind::InvalidInput, "era", fmt::format("no era '{}' in {}", name, kOrigin));
}

}  // namespace neurarch::plan
