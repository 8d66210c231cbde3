#include "server/request_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"
#include "plan/hardware.hpp"

namespace neurarch::server {
namespace {
using Json = nlohmann::json;

enum class Kind { Integer, Number, Boolean, Text, TextList };

struct Key {
  std::string_view name;
  Kind kind;
  double min = 0, max = 0;  // for numbers; for text, max is the length limit
};

// Ranges keep one request's work bounded: the planner's cost grows with batch (bisection) and the
// graph with seq, never with epochs or samples.
constexpr std::array<Key, 15> kKeys{{
    {"batch", Kind::Integer, 1, 65536},
    {"attention", Kind::Text, 0, 8},
    {"optimizer", Kind::Text, 0, 16},
    {"grad_checkpointing", Kind::Boolean},
    {"lora_rank", Kind::Integer, 1, 4096},
    {"lora_dropout", Kind::Number, 0, 0.99},
    {"lora_targets", Kind::TextList, 0, 64},
    {"qlora", Kind::Boolean},
    {"autocast", Kind::Boolean},
    {"card", Kind::Text, 0, 64},
    {"epochs", Kind::Integer, 1, 100000},
    {"global_batch", Kind::Integer, 1, 1 << 24},
    {"samples", Kind::Integer, 1, 1e13},
    {"seq", Kind::Integer, 1, 1 << 20},
    {"image_size", Kind::Integer, 1, 16384},
}};
constexpr std::string_view kClassKey = "class";  // a C++ keyword, so not in the table's naming

const Key* find_key(std::string_view name) {
  for (const auto& k : kKeys)
    if (k.name == name) return &k;
  return nullptr;
}

[[noreturn]] void fail(std::string_view key, std::string_view message) {
  throw OptionError(fmt::format("{}: {}", key, message));
}

std::int64_t integer(const Json& v, const Key& k) {
  if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
    fail(k.name, "must be an integer");
  const double d = v.get<double>();
  if (d < k.min || d > k.max) fail(k.name, fmt::format("must be between {} and {}", k.min, k.max));
  return v.get<std::int64_t>();
}

double number(const Json& v, const Key& k) {
  if (!v.is_number()) fail(k.name, "must be a number");
  const double d = v.get<double>();
  if (!(d >= k.min && d <= k.max)) fail(k.name, fmt::format("must be between {} and {}", k.min, k.max));
  return d;
}

bool boolean(const Json& v, const Key& k) {
  if (!v.is_boolean()) fail(k.name, "must be true or false");
  return v.get<bool>();
}

std::string text(const Json& v, std::string_view key, std::size_t max_len) {
  if (!v.is_string()) fail(key, "must be a string");
  auto s = v.get<std::string>();
  if (s.size() > max_len) fail(key, fmt::format("longer than {} characters", max_len));
  return s;
}

std::string one_of(const std::string& value, std::string_view key, std::initializer_list<std::string_view> allowed) {
  for (auto a : allowed)
    if (value == a) return value;
  fail(key, fmt::format("'{}' is not one of {}", value, fmt::join(allowed, ", ")));
}

Json from_text(const Key& k, const std::string& raw) {
  switch (k.kind) {
    case Kind::Integer:
    case Kind::Number: {
      double d = 0;
      const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
      if (ec != std::errc() || end != raw.data() + raw.size()) fail(k.name, fmt::format("'{}' is not a number", raw));
      if (k.kind == Kind::Integer && std::floor(d) == d && std::abs(d) < 9e15) return Json(static_cast<std::int64_t>(d));
      return Json(d);
    }
    case Kind::Boolean:
      if (raw == "true" || raw == "1" || raw == "on") return true;
      if (raw == "false" || raw == "0" || raw == "off") return false;
      fail(k.name, "must be true or false");
    case Kind::Text: return raw;
    case Kind::TextList: {
      Json list = Json::array();
      std::size_t start = 0;
      while (start <= raw.size()) {
        const auto comma = std::min(raw.find(',', start), raw.size());
        if (comma > start) list.push_back(raw.substr(start, comma - start));
        start = comma + 1;
      }
      return list;
    }
  }
  return nullptr;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ',') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

RequestOptions default_request_options() { return options_from_json(Json::object(), {}); }

RequestOptions options_from_json(const Json& body, const std::set<std::string>& ignore) {
  if (!body.is_object()) throw OptionError("the request body must be a JSON object");
  RequestOptions o;
  plan::Setup s;
  bool qlora = false;
  std::string card;
  std::optional<double> dropout;
  Json effective = Json::object();
  Json changed = Json::object();
  for (const auto& [name, value] : body.items()) {
    if (ignore.count(name)) continue;
    if (name == kClassKey) {
      o.build.class_name = text(value, name, 128);
      effective[name] = changed[name] = o.build.class_name;
      continue;
    }
    const Key* k = find_key(name);
    if (!k) fail(name, "unknown option (see GET / for the list)");
    if (value.is_null()) continue;
    if (name == "batch") s.batch = integer(value, *k);
    else if (name == "attention") s.attention = one_of(text(value, name, 8), name, {"sdpa", "eager"}) == "eager" ? plan::AttentionImpl::Eager : plan::AttentionImpl::SDPA;
    else if (name == "optimizer") {
      const auto opt = one_of(text(value, name, 16), name, {"adamw", "adamw-fused", "sgd-momentum", "adam-8bit"});
      s.optimizer = opt == "adamw-fused"    ? plan::Optimizer::AdamWFused
                    : opt == "sgd-momentum" ? plan::Optimizer::SGDMomentum
                    : opt == "adam-8bit"    ? plan::Optimizer::Adam8bit
                                            : plan::Optimizer::AdamW;
    } else if (name == "grad_checkpointing") s.grad_checkpointing = boolean(value, *k);
    else if (name == "lora_rank") s.lora_rank = integer(value, *k);
    else if (name == "lora_dropout") dropout = number(value, *k);
    else if (name == "lora_targets") {
      if (!value.is_array() || value.size() > 64) fail(name, "must be a list of at most 64 module names");
      for (const auto& t : value) s.lora_targets.push_back(text(t, name, 64));
    } else if (name == "qlora") qlora = boolean(value, *k);
    else if (name == "autocast") s.autocast_bf16 = boolean(value, *k);
    else if (name == "card") card = text(value, name, 64);
    else if (name == "epochs") o.plan.run.epochs = integer(value, *k);
    else if (name == "global_batch") o.plan.run.global_batch = integer(value, *k);
    else if (name == "samples") o.plan.run.samples = integer(value, *k);
    else if (name == "seq") o.build.seq = integer(value, *k);
    else if (name == "image_size") o.build.image_size = integer(value, *k);
    changed[name] = value;
  }
  s.lora_dropout = dropout.value_or(plan::default_runtime().lora_default_dropout);
  o.plan.full = s;
  o.plan.full.mode = plan::Mode::Full;
  o.plan.lora = s;
  o.plan.lora.mode = qlora ? plan::Mode::QLoRA : plan::Mode::LoRA;
  o.plan.cards = plan::default_cards();
  if (!card.empty()) {
    try {
      o.plan.cards = {plan::find_card(o.plan.cards, card)};
    } catch (const Error&) {
      fail("card", fmt::format("'{}' is not in the card catalogue (GET /cards)", card));
    }
  }
  try {
    plan::validate(o.plan);
  } catch (const Error& e) {
    throw OptionError(e.what());
  }

  effective["batch"] = s.batch;
  effective["attention"] = s.attention == plan::AttentionImpl::Eager ? "eager" : "sdpa";
  effective["optimizer"] = plan::optimizer_name(s.optimizer);
  effective["grad_checkpointing"] = s.grad_checkpointing;
  effective["lora_rank"] = s.lora_rank;
  effective["lora_dropout"] = s.lora_dropout;
  effective["lora_targets"] = s.lora_targets;
  effective["qlora"] = qlora;
  effective["autocast"] = s.autocast_bf16;
  effective["card"] = card;
  effective["run"] = {o.plan.run.epochs, o.plan.run.global_batch, o.plan.run.samples};
  effective["seq"] = o.build.seq ? Json(*o.build.seq) : Json(nullptr);
  effective["image_size"] = o.build.image_size ? Json(*o.build.image_size) : Json(nullptr);
  o.key = effective.dump();  // nlohmann orders object keys, so equal options give equal keys

  std::string query;
  for (const auto& [name, value] : changed.items()) {
    std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    if (value.is_array()) {
      v.clear();
      for (const auto& t : value) v += fmt::format("{}{}", v.empty() ? "" : ",", t.get<std::string>());
    }
    query += fmt::format("{}{}={}", query.empty() ? "" : "&", name, url_encode(v));
  }
  o.query = query;
  for (const auto& [name, value] : changed.items()) {
    std::string flag = fmt::format("--{}", name);
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (value.is_boolean()) {
      if (name == "autocast") {
        if (!value.get<bool>()) o.cli_flags += " --no-autocast";
      } else if (value.get<bool>()) {
        o.cli_flags += fmt::format(" {}", flag);
      }
      continue;
    }
    std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    if (value.is_array()) {
      v.clear();
      for (const auto& t : value) v += fmt::format("{}{}", v.empty() ? "" : ",", t.get<std::string>());
    }
    o.cli_flags += fmt::format(" {} {}", flag, v);
  }
  return o;
}

RequestOptions options_from_query(const std::multimap<std::string, std::string>& params) {
  Json body = Json::object();
  for (const auto& [name, raw] : params) {
    if (body.contains(name)) fail(name, "given twice");
    if (name == kClassKey) {
      body[name] = raw;
      continue;
    }
    const Key* k = find_key(name);
    if (!k) fail(name, "unknown option");
    body[name] = from_text(*k, raw);
  }
  return options_from_json(body, {});
}

}  // namespace neurarch::server
