#include "server/headline.hpp"

#include <fmt/format.h>

namespace neurarch::server {
namespace {
using Json = nlohmann::json;

std::string short_bytes(std::int64_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  return gib < 10 ? fmt::format("{:.2f} GiB", gib) : fmt::format("{:.0f} GiB", gib);
}

}  // namespace

Json badge_json(const report::Report& r) {
  Json out = {{"schemaVersion", 1}, {"label", "neurarch"}};
  if (!r.graph.forward.ok) {
    out["message"] = "does not forward-pass";
    out["color"] = "red";
    return out;
  }
  if (!r.plan) {
    out["message"] = "no plan";
    out["color"] = "lightgrey";
    return out;
  }
  const auto& p = *r.plan;
  if (const auto* fit = plan::smallest_fit(p, true)) {
    out["message"] = fmt::format("full FT {} · fits {}", short_bytes(p.full.device_bytes), fit->card);
    out["color"] = "brightgreen";
  } else if (const auto* lora_fit = plan::smallest_fit(p, false)) {
    out["message"] = fmt::format("{} {} · fits {}", plan::mode_label(p.lora.mode),
                                 short_bytes(p.lora.device_bytes), lora_fit->card);
    out["color"] = "yellow";
  } else {
    out["message"] = fmt::format("full FT {} · no single card", short_bytes(p.full.device_bytes));
    out["color"] = "orange";
  }
  return out;
}

Json index_entry(const report::Report& r) {
  Json e = {{"id", r.model.id},
            {"model_type", r.model.model_type},
            {"class", r.model.class_name},
            {"source", r.model.source},
            {"parameters", r.derived_scalars()},
            {"checkpoint_parameters", r.checkpoint ? Json(r.checkpoint->checkpoint_scalars) : Json(nullptr)},
            {"layers", r.graph.layer_count()},
            {"forward_pass", r.graph.forward.ok},
            {"findings", r.findings.size()}};
  if (r.plan) {
    const auto& p = *r.plan;
    const auto* full = plan::smallest_fit(p, true);
    const auto* lora = plan::smallest_fit(p, false);
    e["full_batch1_bytes"] = p.full.device_bytes;
    e["lora_batch1_bytes"] = p.lora.device_bytes;
    e["full_fits"] = full ? Json(full->card) : Json(nullptr);
    e["lora_fits"] = lora ? Json(lora->card) : Json(nullptr);
    if (p.cost && p.cost->cheapest)
      e["cheapest_run"] = {{"card", p.cost->cheapest->card},
                           {"mode", plan::mode_name(p.cost->mode)},
                           {"hours", p.cost->cheapest->hours},
                           {"usd", p.cost->cheapest->usd ? Json(*p.cost->cheapest->usd) : Json(nullptr)}};
    else
      e["cheapest_run"] = nullptr;
  }
  return e;
}

}  // namespace neurarch::server
