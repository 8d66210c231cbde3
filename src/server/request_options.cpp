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
#include "plan/options.hpp"

namespace neurarch::server {
namespace {
using Json = nlohmann::json;

// The options that are not the training setup's (those are plan/options.hpp's table): the card and
// the graph's shape. Ranges keep one request's work bounded: the graph grows with seq.
struct OtherKey {
  std::string_view name;
  bool integer;
  double max;  // integers: largest value; text: longest length
};
constexpr std::array<OtherKey, 3> kOtherKeys{{{"card", false, 64}, {"seq", true, 1 << 20}, {"image_size", true, 16384}}};
constexpr std::string_view kClassKey = "class";  // a C++ keyword, so not in the table's naming

const OtherKey* find_other(std::string_view name) {
  for (const auto& k : kOtherKeys)
    if (k.name == name) return &k;
  return nullptr;
}

const plan::OptionAlias* find_alias(std::string_view name) {
  for (const auto& a : plan::option_aliases())
    if (a.name == name) return &a;
  return nullptr;
}

[[noreturn]] void fail(std::string_view key, std::string_view message);

std::int64_t integer(const Json& v, std::string_view key, double max) {
  if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
    fail(key, "must be an integer");
  const double d = v.get<double>();
  if (d < 1 || d > max) fail(key, fmt::format("must be between 1 and {}", max));
  return v.get<std::int64_t>();
}

std::string text(const Json& v, std::string_view key, std::size_t max_len) {
  if (!v.is_string()) fail(key, "must be a string");
  auto s = v.get<std::string>();
  if (s.size() > max_len) fail(key, fmt::format("longer than {} characters", max_len));
  return s;
}

// A JSON value of a table option, checked for its JSON type here and for its range by the table.
void set_option(plan::SetupChoices& c, const plan::OptionSpec& spec, const Json& v) {
  const std::string_view key = spec.name;
  switch (spec.kind) {
    case plan::OptionKind::Integer:
    case plan::OptionKind::Number:
      if (!v.is_number()) fail(key, spec.kind == plan::OptionKind::Integer ? "must be an integer" : "must be a number");
      c.set(key, v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : plan::option_text(v.get<double>()));
      return;
    case plan::OptionKind::Boolean:
      if (!v.is_boolean()) fail(key, "must be true or false");
      c.set(key, plan::option_text(v.get<bool>()));
      return;
    case plan::OptionKind::Choice: c.set(key, text(v, key, 64)); return;
    case plan::OptionKind::TextList: {
      if (!v.is_array() || v.size() > 64) fail(key, "must be a list of at most 64 module names");
      std::vector<std::string> items;
      for (const auto& t : v) items.push_back(text(t, key, 64));
      c.set_list(key, items);
      return;
    }
  }
}

// A query parameter's text as the JSON value its key takes.
Json from_text(std::string_view key, const std::string& raw) {
  auto number = [&]() -> Json {
    double d = 0;
    const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
    if (ec != std::errc() || end != raw.data() + raw.size()) fail(key, fmt::format("'{}' is not a number", raw));
    if (std::floor(d) == d && std::abs(d) < 9e15) return Json(static_cast<std::int64_t>(d));
    return Json(d);
  };
  auto boolean = [&]() -> Json {
    if (raw == "true" || raw == "1" || raw == "on") return true;
    if (raw == "false" || raw == "0" || raw == "off") return false;
    fail(key, "must be true or false");
  };
  if (find_alias(key)) return boolean();
  if (const auto* other = find_other(key)) return other->integer ? number() : Json(raw);
  const auto* spec = plan::find_option(key);
  if (!spec) fail(key, "unknown option");
  switch (spec->kind) {
    case plan::OptionKind::Integer:
    case plan::OptionKind::Number: return number();
    case plan::OptionKind::Boolean: return boolean();
    case plan::OptionKind::Choice: return raw;
    case plan::OptionKind::TextList: {
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
  plan::SetupChoices choices;
  std::string card;
  Json changed = Json::object();
  try {
    for (const auto& [name, value] : body.items()) {
      if (ignore.count(name)) continue;
      if (name == kClassKey) {
        o.build.class_name = text(value, name, 128);
        changed[name] = o.build.class_name;
        continue;
      }
      if (value.is_null()) continue;
      if (const auto* alias = find_alias(name)) {
        if (!value.is_boolean()) fail(name, "must be true or false");
        choices.set_alias(alias->name, value.get<bool>());
      } else if (const auto* other = find_other(name)) {
        if (name == "card") card = text(value, name, static_cast<std::size_t>(other->max));
        else if (name == "seq") o.build.seq = integer(value, name, other->max);
        else o.build.image_size = integer(value, name, other->max);
      } else if (const auto* spec = plan::find_option(name)) {
        set_option(choices, *spec, value);
      } else {
        fail(name, "unknown option (see GET / for the list)");
      }
      changed[name] = value;
    }
    o.plan = plan::plan_options(choices, plan::default_runtime());
  } catch (const Error& e) {
    throw OptionError(e.what());
  }
  o.plan.cards = plan::default_cards();
  if (!card.empty()) {
    try {
      o.plan.cards = {plan::find_card(o.plan.cards, card)};
    } catch (const Error&) {
      fail("card", fmt::format("'{}' is not in the card catalogue (GET /cards)", card));
    }
  }

  // The effective setup, whatever spelled it: equal plans give equal keys.
  const auto& f = o.plan.full;
  const auto& l = o.plan.lora;
  Json effective = Json::object();
  effective["batch"] = f.batch;
  effective["attention"] = f.attention == plan::AttentionImpl::Eager ? "eager" : "sdpa";
  effective["optimizer"] = {plan::optimizer_name(f.optimizer), plan::optimizer_name(l.optimizer)};
  effective["optimizer_foreach"] = f.optimizer_foreach;
  effective["precision"] = {plan::precision_name(f.precision), plan::precision_name(l.precision)};
  effective["grad_checkpointing"] = f.grad_checkpointing;
  effective["keep_gradients"] = f.keep_gradients;
  effective["softmax_saves_input"] = f.softmax_saves_input;
  effective["hold_outputs"] = f.hold_outputs;
  effective["untie_head"] = f.untie_head;
  effective["fused_qkv"] = f.fused_qkv;
  effective["quantize_head"] = l.quantize_head;
  effective["loss"] = {plan::loss_name(f.loss), f.loss_chunk, f.loss_chunks};
  effective["lora_rank"] = l.lora_rank;
  effective["lora_dropout"] = l.lora_dropout;
  effective["lora_targets"] = l.lora_targets;
  effective["lora_fp32_adapters"] = l.lora_fp32_adapters;
  effective["dora"] = l.dora;
  effective["qlora"] = l.mode == plan::Mode::QLoRA;
  effective["qlora_load"] = l.qlora_load == plan::QuantizedLoad::LoadThenQuantize;
  effective["qlora_double_quant"] = l.qlora_double_quant;
  effective["qlora_quantized_from_fp16"] = l.qlora_quantized_from_fp16;
  effective["qlora_keeps_input"] = l.qlora_keeps_input;
  effective["context"] = o.plan.runtime.cuda_context_bytes;
  effective["card"] = card;
  effective["class"] = o.build.class_name;
  effective["run"] = {o.plan.run.epochs, o.plan.run.global_batch, o.plan.run.samples};
  effective["seq"] = o.build.seq ? Json(*o.build.seq) : Json(nullptr);
  effective["image_size"] = o.build.image_size ? Json(*o.build.image_size) : Json(nullptr);
  // nlohmann orders object keys, so equal options give equal keys. A query string is not validated as
  // UTF-8 on the way in: such bytes become U+FFFD here instead of throwing (found by fuzz/server_fuzzer.cpp).
  o.key = effective.dump(-1, ' ', false, Json::error_handler_t::replace);

  auto listed = [](const Json& value) {
    std::string v = value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (value.is_array()) {
      v.clear();
      for (const auto& t : value) v += fmt::format("{}{}", v.empty() ? "" : ",", t.get<std::string>());
    }
    return v;
  };
  std::string query;
  for (const auto& [name, value] : changed.items())
    query += fmt::format("{}{}={}", query.empty() ? "" : "&", name, url_encode(listed(value)));
  o.query = query;
  for (const auto& [name, value] : changed.items()) {
    const auto* alias = find_alias(name);
    const auto* spec = plan::find_option(name);
    if (alias) {
      const std::string_view sets = value.get<bool>() ? alias->when_true : alias->when_false;
      if (!sets.empty()) o.cli_flags += fmt::format(" --{} {}", alias->sets, sets);
      continue;
    }
    std::string flag = spec ? std::string(spec->cli) : fmt::format("--{}", name);
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (value.is_boolean()) {
      if (value.get<bool>()) o.cli_flags += fmt::format(" {}", flag);
      else if (spec && spec->default_text.empty()) o.cli_flags += fmt::format(" --no-{}", flag.substr(2));
      continue;
    }
    o.cli_flags += fmt::format(" {} {}", flag, listed(value));
  }
  return o;
}

std::string one_line(const std::string& message) {
  const bool controls = std::any_of(message.begin(), message.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (!controls) {
    try {
      (void)Json(message).dump();  // valid UTF-8 (a "×" in a message) stays as it is
      return message;
    } catch (const Json::type_error&) {
    }
  }
  const std::string quoted = Json(message).dump(-1, ' ', false, Json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

namespace {
// A key or value a client sent, echoed: a newline in a key made the message two lines, and bytes that
// are not UTF-8 made the JSON error answer throw, a 500 (found by fuzz/server_fuzzer.cpp).
[[noreturn]] void fail(std::string_view key, std::string_view message) {
  throw OptionError(one_line(fmt::format("{}: {}", key, message)));
}
}  // namespace

RequestOptions options_from_query(const std::multimap<std::string, std::string>& params) {
  Json body = Json::object();
  for (const auto& [name, raw] : params) {
    if (body.contains(name)) fail(name, "given twice");
    body[name] = name == kClassKey ? Json(raw) : from_text(name, raw);
  }
  return options_from_json(body, {});
}

}  // namespace neurarch::server
