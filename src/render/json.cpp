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
}  // namespace

nlohmann::json to_json(const report::Report& r) {
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
    layers.push_back(std::move(row));
  }
  out["layers"] = std::move(layers);
  out["layer_count"] = g.layer_count();

  Json tensors = Json::array();
  for (const auto& t : g.tensors) {
    Json row = {{"name", t.name},
                {"shape", t.shape},
                {"dtype", dtype_name(t.dtype)},
                {"kind", t.kind == graph::TensorKind::Buffer ? "buffer" : "parameter"},
                {"layer", g.nodes[static_cast<std::size_t>(t.node)].name}};
    if (!t.saved()) row["tied_to"] = t.tied_to;
    tensors.push_back(std::move(row));
  }
  out["tensors"] = std::move(tensors);

  Json params = {{"derived", r.derived_scalars()},
                 {"trainable", g.parameter_count()},
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

std::string json(const report::Report& r) {
  // Appending in place: `dump(2) + "\n"` would copy the whole (multi-megabyte for 70B) text once more.
  std::string text = to_json(r).dump(2);
  text += '\n';
  return text;
}

}  // namespace neurarch::render
