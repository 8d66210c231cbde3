#include <fmt/format.h>

#include "render/plan_render.hpp"
#include "render/render.hpp"

namespace neurarch::render {
namespace {
using Json = nlohmann::json;

Json tensor_json(const checkpoint::TensorFacts& t) {
  return {{"name", t.name}, {"shape", t.shape}, {"dtype", dtype_name(t.dtype)}};
}

Json nullable(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json attention_json(const graph::AttentionAttrs& a) {
  return {{"heads", a.heads}, {"kv_heads", a.kv_heads}, {"head_dim", a.head_dim}, {"causal", a.causal},
          {"window", a.window ? Json(a.window) : Json(nullptr)}};
}

// Everything but the two long arrays (one row per node and per tensor), which json() writes
// directly: building them as a DOM costs most of a 70B report's rendering time.
Json summary_json(const report::Report& r) {
  const auto& g = r.graph;
  Json out;
  out["schema"] = report::kSchema;
  out["model"] = {{"id", r.model.id},
                  {"revision", nullable(r.model.revision)},
                  {"model_type", r.model.model_type},
                  {"class", r.model.class_name},
                  {"source", r.model.source},
                  {"config", r.model.config_origin},
                  {"reference", r.model.reference}};
  out["input"] = {{"shape", g.input_shape}, {"kind", g.input_kind}};
  // Every input, the main one first (two for encoder-decoders and two-tower models); "input" is the main one.
  out["inputs"] = Json::array();
  for (const auto& in : g.inputs) out["inputs"].push_back({{"name", in.name}, {"kind", in.kind}, {"shape", in.shape}});

  out["layer_count"] = g.layer_count();

  Json params = {{"derived", r.derived_scalars()},
                 {"trainable", g.parameter_count() - g.frozen_parameter_count()},
                 {"frozen", g.frozen_parameter_count()},
                 {"active_parameters", g.active_parameter_count()},
                 {"checkpoint", nullptr},
                 {"delta", nullptr},
                 {"delta_percent", nullptr}};
  if (r.checkpoint) {
    params["checkpoint"] = r.checkpoint->checkpoint_scalars;
    params["delta"] = *r.delta();
    if (auto p = r.delta_percent()) params["delta_percent"] = *p;
    Json missing = Json::array(), unexpected = Json::array(), mismatched = Json::array();
    for (const auto& t : r.checkpoint->missing) missing.push_back(tensor_json(t));
    for (const auto& u : r.checkpoint->unexpected) {
      auto row = tensor_json(u.tensor);
      row["explanation"] = nullable(u.explanation);
      unexpected.push_back(std::move(row));
    }
    for (const auto& m : r.checkpoint->mismatched)
      mismatched.push_back({{"name", m.name}, {"ours", tensor_json(m.ours)}, {"checkpoint", tensor_json(m.checkpoint)},
                            {"reason", m.reason}});
    out["checkpoint_diff"] = {{"files", r.checkpoint->files},
                              {"missing", std::move(missing)},
                              {"unexpected", std::move(unexpected)},
                              {"mismatched", std::move(mismatched)},
                              {"notes", r.checkpoint->notes}};
  }
  out["parameters"] = std::move(params);

  out["forward_pass"] = {{"ok", g.forward.ok},
                         {"node", g.forward.ok ? Json(nullptr) : Json(g.nodes[static_cast<std::size_t>(g.forward.node)].name)},
                         {"reason", g.forward.ok ? Json(nullptr) : Json(g.forward.reason)}};
  Json notes = g.notes;
  for (const auto& n : r.notes) notes.push_back(n);
  out["notes"] = std::move(notes);
  Json findings = Json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"rule", f.rule}, {"severity", f.severity}, {"node", nullable(f.node)}, {"message", f.message},
                        {"fix", f.fix}});
  out["findings"] = std::move(findings);
  Json reads = Json::array();
  for (const auto& read : r.config_reads)
    reads.push_back({{"key", read.key}, {"value", Json::parse(read.value)}, {"from", read.from_file ? "config" : "default"}});
  out["config_reads"] = std::move(reads);
  out["plan"] = r.plan ? plan_json(*r.plan) : Json(nullptr);
  if (r.hub) {
    auto opt = [](const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); };
    out["hub"] = {{"sha", nullable(r.hub->sha)},           {"last_modified", nullable(r.hub->last_modified)},
                  {"gated", nullable(r.hub->gated)},       {"downloads", opt(r.hub->downloads)},
                  {"likes", opt(r.hub->likes)},            {"safetensors_total", opt(r.hub->safetensors_total)}};
  } else {
    out["hub"] = nullptr;
  }
  return out;
}

Json layers_json(const graph::Graph& g) {
  Json layers = Json::array();
  for (const auto& n : g.nodes) {
    Json row = {{"index", n.index},
                {"name", n.name},
                {"type", graph::node_type_name(n.type)},
                {"output_shape", n.out},
                {"parameters", g.node_scalars(n.index)},
                {"block", n.block >= 0 ? Json(n.block) : Json(nullptr)},
                {"module", nullable(n.path)}};
    if (n.attention) row["attention"] = attention_json(*n.attention);
    if (n.feed_forward)
      row["feed_forward"] = {{"intermediate", n.feed_forward->intermediate},
                             {"activation", n.feed_forward->activation},
                             {"gated", n.feed_forward->gated}};
    if (n.moe)
      row["moe"] = {{"experts", n.moe->experts},
                    {"top_k", n.moe->top_k},
                    {"intermediate", n.moe->intermediate},
                    {"shared_intermediate", n.moe->shared_intermediate}};
    layers.push_back(std::move(row));
  }
  return layers;
}

Json tensors_json(const graph::Graph& g) {
  Json tensors = Json::array();
  for (const auto& t : g.tensors) {
    Json row = {{"name", t.name},
                {"shape", t.shape},
                {"dtype", dtype_name(t.dtype)},
                {"kind", t.kind == graph::TensorKind::Buffer ? "buffer" : "parameter"},
                {"layer", g.nodes[static_cast<std::size_t>(t.node)].name}};
    if (!t.saved()) row["tied_to"] = t.tied_to;
    if (t.frozen) row["frozen"] = true;
    tensors.push_back(std::move(row));
  }
  return tensors;
}

// JSON string literal: quotes, backslashes and control characters escaped.
void quoted(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;  // start of the current stretch that needs no escaping, appended in one go
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c != '"' && c != '\\' && c >= 0x20) continue;
    out.append(s.substr(run, i - run));
    if (c < 0x20)
      fmt::format_to(fmt::appender(out), "\\u{:04x}", static_cast<unsigned>(c));
    else {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    }
    run = i + 1;
  }
  out.append(s.substr(run));
  out.push_back('"');
}

void write_shape(fmt::memory_buffer& out, const graph::Shape& shape) {
  fmt::format_to(fmt::appender(out), "[{}]", fmt::join(shape, ", "));
}

void write_layers(fmt::memory_buffer& out, const graph::Graph& g) {
  auto it = fmt::appender(out);
  fmt::format_to(it, "  \"layers\": [");
  for (const auto& n : g.nodes) {
    fmt::format_to(it, "{}\n    {{\"index\": {}, \"name\": ", n.index ? "," : "", n.index);
    quoted(out, n.name);
    fmt::format_to(it, ", \"type\": \"{}\", \"output_shape\": ", graph::node_type_name(n.type));
    write_shape(out, n.out);
    fmt::format_to(it, ", \"parameters\": {}, \"block\": ", g.node_scalars(n.index));
    if (n.block >= 0) fmt::format_to(it, "{}", n.block);
    else fmt::format_to(it, "null");
    fmt::format_to(it, ", \"module\": ");
    if (n.path.empty()) fmt::format_to(it, "null");
    else quoted(out, n.path);
    if (n.attention) {
      const auto& a = *n.attention;
      fmt::format_to(it, ", \"attention\": {{\"heads\": {}, \"kv_heads\": {}, \"head_dim\": {}, \"causal\": {}, \"window\": ",
                     a.heads, a.kv_heads, a.head_dim, a.causal);
      if (a.window) fmt::format_to(it, "{}}}", a.window);
      else fmt::format_to(it, "null}}");
    }
    if (n.feed_forward) {
      fmt::format_to(it, ", \"feed_forward\": {{\"intermediate\": {}, \"activation\": ", n.feed_forward->intermediate);
      quoted(out, n.feed_forward->activation);
      fmt::format_to(it, ", \"gated\": {}}}", n.feed_forward->gated);
    }
    if (n.moe)
      fmt::format_to(it, ", \"moe\": {{\"experts\": {}, \"top_k\": {}, \"intermediate\": {}, \"shared_intermediate\": {}}}",
                     n.moe->experts, n.moe->top_k, n.moe->intermediate, n.moe->shared_intermediate);
    out.push_back('}');
  }
  fmt::format_to(it, "\n  ]");
}

void write_tensors(fmt::memory_buffer& out, const graph::Graph& g) {
  auto it = fmt::appender(out);
  fmt::format_to(it, "  \"tensors\": [");
  bool first = true;
  for (const auto& t : g.tensors) {
    fmt::format_to(it, "{}\n    {{\"name\": ", first ? "" : ",");
    first = false;
    quoted(out, t.name);
    fmt::format_to(it, ", \"shape\": ");
    write_shape(out, t.shape);
    fmt::format_to(it, ", \"dtype\": \"{}\", \"kind\": \"{}\", \"layer\": ", dtype_name(t.dtype),
                   t.kind == graph::TensorKind::Buffer ? "buffer" : "parameter");
    quoted(out, g.nodes[static_cast<std::size_t>(t.node)].name);
    if (!t.saved()) {
      fmt::format_to(it, ", \"tied_to\": ");
      quoted(out, t.tied_to);
    }
    if (t.frozen) fmt::format_to(it, ", \"frozen\": true");
    out.push_back('}');
  }
  fmt::format_to(it, "\n  ]");
}

}  // namespace

nlohmann::json to_json(const report::Report& r) {
  Json out = summary_json(r);
  out["layers"] = layers_json(r.graph);
  out["tensors"] = tensors_json(r.graph);
  return out;
}

std::string json(const report::Report& r) {
  // The summary is small and goes through nlohmann; the two long arrays are written directly and
  // spliced in before the closing brace. tests/unit/json_render_test.cpp checks both paths agree.
  // Names a user typed (a LoRA target on the command line) may hold bytes that are not UTF-8: they are
  // written as U+FFFD rather than throwing half-way through a report (found by fuzz/config_fuzzer.cpp).
  std::string head = summary_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  fmt::memory_buffer out;
  out.reserve(head.size() + 256 * (r.graph.nodes.size() + r.graph.tensors.size()));  // rows are ~100-200 bytes
  out.append(std::string_view(head).substr(0, head.size() - 2));  // drop the final "\n}"
  out.append(std::string_view(",\n"));
  write_layers(out, r.graph);
  out.append(std::string_view(",\n"));
  write_tensors(out, r.graph);
  out.append(std::string_view("\n}\n"));
  return fmt::to_string(out);
}

}  // namespace neurarch::render
