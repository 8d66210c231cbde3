#include "core/config.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "core/limits.hpp"

namespace neurarch {
namespace {

// nlohmann reports a byte offset; people fix files by line and column.
std::string line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}", line, column);
}

std::string first_key(Config::Keys keys) { return keys.size() ? std::string(*keys.begin()) : std::string(); }

}  // namespace

std::string standardize_python_json(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size()) out += text[++i];
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    auto rest = text.substr(i);
    if (rest.starts_with("NaN")) {
      out += "null";
      i += 2;
    } else if (rest.starts_with("Infinity")) {
      out += "1e308";
      i += 7;
    } else if (rest.starts_with("-Infinity")) {
      out += "-1e308";
      i += 8;
    } else {
      out += ch;
    }
  }
  return out;
}

Config Config::parse(std::string_view text, std::string origin) {
  if (text.size() > limits::kMaxConfigBytes)
    throw Error(ErrorKind::InvalidInput, origin,
                fmt::format("config is {} bytes, over the {} byte limit", text.size(), limits::kMaxConfigBytes));
  if (nested_deeper_than(text, limits::kMaxJsonDepth))
    throw Error(ErrorKind::InvalidInput, origin, fmt::format("nested deeper than {} levels", limits::kMaxJsonDepth));
  nlohmann::json parsed;
  // The rewrite never adds or removes a newline, so line numbers in errors match the user's file.
  const std::string standard = standardize_python_json(text);
  try {
    parsed = nlohmann::json::parse(standard);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points one past the offending character.
    std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    auto colon = what.rfind(": ");
    throw Error(ErrorKind::InvalidInput, origin + ":" + line_column(standard, offset),
                "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
  } catch (const nlohmann::json::exception& e) {
    // e.g. a number such as 1e999 that no double holds
    throw Error(ErrorKind::InvalidInput, origin, std::string("invalid JSON: ") + e.what());
  }
  if (!parsed.is_object())
    throw Error(ErrorKind::InvalidInput, origin,
                fmt::format("config must be a JSON object, found {}", parsed.type_name()));
  return Config(std::move(parsed), std::move(origin));
}

Config::Config(nlohmann::json object, std::string origin)
    : json_(std::make_shared<const nlohmann::json>(std::move(object))), origin_(std::move(origin)) {
  if (!json_->is_object())
    throw Error(ErrorKind::InvalidInput, origin_, fmt::format("config must be a JSON object, found {}", json_->type_name()));
}

const nlohmann::json* Config::find(Keys keys, std::string& found_key) const {
  for (auto key : keys) {
    auto it = json_->find(key);
    if (it != json_->end() && !it->is_null()) {
      found_key = key;
      return &*it;
    }
  }
  return nullptr;
}

std::string Config::where(std::string_view key) const { return fmt::format("{}: key '{}'", origin_, key); }

void Config::record(std::string_view key, const nlohmann::json& value, bool from_file, Keys aliases) const {
  const std::string path = prefix_ + std::string(key);
  from_file = from_file && from_file_;
  ConfigRead* read = nullptr;
  for (auto& r : *reads_) {
    if (r.key != path) continue;
    // An absence seen by has()/raw() gives way to the default a later typed read applies.
    if (!r.from_file && r.value == "null") {
      r.value = value.dump();
      r.from_file = from_file;
    }
    read = &r;
    break;
  }
  if (!read) {
    reads_->push_back({path, value.dump(), from_file, {path}});
    read = &reads_->back();
  }
  for (auto alias : aliases) {
    std::string spelled = prefix_ + std::string(alias);
    if (std::find(read->aliases.begin(), read->aliases.end(), spelled) == read->aliases.end())
      read->aliases.push_back(std::move(spelled));
  }
}

bool Config::has(std::string_view key) const {
  auto it = json_->find(key);
  const bool present = it != json_->end() && !it->is_null();
  record(key, present ? *it : nlohmann::json(nullptr), present);
  return present;
}

const nlohmann::json* Config::raw(Keys keys) const {
  std::string key;
  const auto* v = find(keys, key);
  if (v) record(key, *v, true, keys);
  else record(first_key(keys), nullptr, false, keys);
  return v;
}

Config Config::sub(nlohmann::json object, std::string_view key, bool from_file) const {
  Config child(std::move(object), fmt::format("{}: {}", origin_, key));
  child.reads_ = reads_;
  child.prefix_ = prefix_ + std::string(key) + ".";
  child.from_file_ = from_file_ && from_file;
  return child;
}

Config Config::child(std::string_view key) const { return child(key, nlohmann::json::object()); }

Config Config::child(std::string_view key, nlohmann::json defaults) const {
  auto it = json_->find(key);
  if (it == json_->end() || it->is_null()) {
    if (!defaults.is_object())
      throw std::logic_error(where(key) + ": a sub-config's defaults must be an object");
    return sub(std::move(defaults), key, false);
  }
  if (!it->is_object())
    throw Error(ErrorKind::InvalidInput, where(key),
                fmt::format("expected an object (a sub-config), found {}", it->type_name()));
  return sub(*it, key, true);
}

std::int64_t Config::integer(Keys keys, std::optional<std::int64_t> fallback) const {
  std::string key;
  const auto* v = find(keys, key);
  if (!v) {
    if (!fallback) throw Error(ErrorKind::InvalidInput, where(first_key(keys)), "missing required key");
    record(first_key(keys), *fallback, false, keys);
    return *fallback;
  }
  // Configs written by hand sometimes hold 768.0; accept integral floats, refuse 768.5.
  if (v->is_number_float()) {
    double d = v->get<double>();
    // The range first: converting a double outside int64's range is undefined behaviour (the fuzzer found
    // 51222222222222222224, which the JSON parser reads as a float).
    if (!(d >= -9.0e18 && d <= 9.0e18) || d != std::trunc(d))
      throw Error(ErrorKind::InvalidInput, where(key), fmt::format("expected an integer, found {}", v->dump()));
    record(key, *v, true, keys);
    return static_cast<std::int64_t>(d);
  }
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("value {} is out of range", v->dump()));
  if (!v->is_number_integer())
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("expected an integer, found {}", v->dump()));
  record(key, *v, true, keys);
  return v->get<std::int64_t>();
}

std::int64_t Config::dim(Keys keys, std::optional<std::int64_t> fallback) const {
  std::int64_t value = integer(keys, fallback);
  std::string key;
  if (!find(keys, key)) key = first_key(keys);
  if (value <= 0)
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("must be a positive size, found {}", value));
  if (value > limits::kMaxDimension)
    throw Error(ErrorKind::InvalidInput, where(key),
                fmt::format("size {} is absurd (over {})", value, limits::kMaxDimension));
  return value;
}

double Config::number(Keys keys, std::optional<double> fallback) const {
  std::string key;
  const auto* v = find(keys, key);
  if (!v) {
    if (!fallback) throw Error(ErrorKind::InvalidInput, where(first_key(keys)), "missing required key");
    record(first_key(keys), *fallback, false, keys);
    return *fallback;
  }
  if (!v->is_number())
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("expected a number, found {}", v->dump()));
  record(key, *v, true, keys);
  return v->get<double>();
}

bool Config::flag(Keys keys, std::optional<bool> fallback) const {
  std::string key;
  const auto* v = find(keys, key);
  if (!v) {
    if (!fallback) throw Error(ErrorKind::InvalidInput, where(first_key(keys)), "missing required key");
    record(first_key(keys), *fallback, false, keys);
    return *fallback;
  }
  if (!v->is_boolean())
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("expected true or false, found {}", v->dump()));
  record(key, *v, true, keys);
  return v->get<bool>();
}

std::string Config::text(Keys keys, std::optional<std::string> fallback) const {
  std::string key;
  const auto* v = find(keys, key);
  if (!v) {
    if (!fallback) throw Error(ErrorKind::InvalidInput, where(first_key(keys)), "missing required key");
    record(first_key(keys), *fallback, false, keys);
    return *fallback;
  }
  if (!v->is_string())
    throw Error(ErrorKind::InvalidInput, where(key), fmt::format("expected a string, found {}", v->dump()));
  record(key, *v, true, keys);
  return v->get<std::string>();
}

std::string Config::model_type() const {
  auto it = json_->find("model_type");
  return it != json_->end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string Config::first_architecture() const {
  auto it = json_->find("architectures");
  if (it == json_->end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return {};
  return (*it)[0].get<std::string>();
}

}  // namespace neurarch
