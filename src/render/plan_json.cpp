#include "render/plan_render.hpp"

namespace neurarch::render {
namespace {
using Json = nlohmann::json;

Json terms_json(const std::vector<plan::MemoryTerm>& terms) {
  Json out = Json::object();
  for (const auto& t : terms) out[t.name] = t.bytes;
  return out;
}

Json memory_json(const plan::MemoryPlan& m, const plan::Setup& s) {
  Json phases = Json::array();
  for (const auto& p : m.phases)
    phases.push_back({{"phase", p.phase}, {"at", p.at.empty() ? Json(nullptr) : Json(p.at)}, {"allocated_bytes", p.allocated},
                      {"terms", terms_json(p.terms)}});
  return {{"mode", plan::mode_name(m.mode)},
          {"batch", m.batch},
          {"batch1_bytes", m.batch == 1 ? Json(m.device_bytes) : Json(nullptr)},
          {"device_bytes", m.device_bytes},
          {"peak_allocated_bytes", m.peak_allocated},
          {"reserved_bytes", m.reserved},
          {"peak_phase", m.peak_phase},
          {"peak_at", m.peak_at.empty() ? Json(nullptr) : Json(m.peak_at)},
          {"breakdown", terms_json(m.breakdown)},
          {"phases", phases},
          {"trainable_parameters", m.trainable_parameters},
          {"setup",
           {{"optimizer", plan::optimizer_name(s.optimizer)},
            {"attention", s.attention == plan::AttentionImpl::SDPA ? "sdpa" : "eager"},
            {"precision", plan::precision_name(s.precision)},
            {"autocast_bf16", s.precision == plan::Precision::AmpBf16},
            {"keep_gradients", s.keep_gradients},
            {"softmax_saves_input", s.softmax_saves_input},
            {"hold_outputs", s.hold_outputs},
            {"untie_head", s.untie_head},
            {"fused_qkv", s.fused_qkv},
            {"quantize_head", m.mode == plan::Mode::QLoRA ? Json(s.quantize_head) : Json(nullptr)},
            {"qlora_double_quant", m.mode == plan::Mode::QLoRA ? Json(s.qlora_double_quant) : Json(nullptr)},
            {"qlora_keeps_input", m.mode == plan::Mode::QLoRA ? Json(s.qlora_keeps_input) : Json(nullptr)},
            {"qlora_quantized_from",
             m.mode == plan::Mode::QLoRA ? Json(s.qlora_quantized_from_fp16 ? "fp16" : "compute") : Json(nullptr)},
            {"loss", plan::loss_name(s.loss)},
            {"grad_checkpointing", s.grad_checkpointing},
            {"lora_rank", m.mode == plan::Mode::Full ? Json(nullptr) : Json(s.lora_rank)},
            {"lora_dropout", m.mode == plan::Mode::Full ? Json(nullptr) : Json(s.lora_dropout)},
            {"lora_targets", m.mode == plan::Mode::Full ? Json(nullptr) : Json(s.lora_targets)}}}};
}

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

nlohmann::json plan_json(const plan::Plan& p) {
  Json out;
  out["full"] = memory_json(p.full, p.full_setup);
  out["lora"] = memory_json(p.lora, p.lora_setup);
  Json cards = Json::array();
  for (std::size_t i = 0; i < p.cards.size(); ++i) {
    const auto& c = p.cards[i];
    cards.push_back({{"card", c.card},
                     {"memory_bytes", c.memory_bytes},
                     {"full_max_batch", c.full_max_batch},
                     {"lora_max_batch", c.lora_max_batch},
                     {"full_fsdp_cards", p.fsdp[i].full_cards ? Json(*p.fsdp[i].full_cards) : Json(nullptr)},
                     {"usable_bytes", c.usable_bytes}});
  }
  out["cards"] = cards;
  if (p.split) {
    Json stages = Json::array();
    for (const auto& s : p.split->stages)
      stages.push_back({{"first", s.first}, {"last", s.last}, {"device_bytes", s.device_bytes}});
    out["split"] = {{"mode", plan::mode_name(p.split_mode)},
                    {"cut_after", p.split->cut_after},
                    {"stages", stages},
                    {"fits_on", p.split->fits_on ? Json(*p.split->fits_on) : Json(nullptr)}};
  } else {
    out["split"] = nullptr;
  }
  if (p.cost && p.cost->cheapest) {
    const auto& c = *p.cost;
    Json per_card = Json::array();
    for (const auto& r : c.cards)
      per_card.push_back({{"card", r.card}, {"micro_batch", r.micro_batch}, {"accumulation", r.accumulation},
                          {"step_seconds", r.step_seconds}, {"hours", r.hours}, {"usd", optional_number(r.usd)}});
    out["cost"] = {{"mode", plan::mode_name(c.mode)},
                   {"card", c.cheapest->card},
                   {"hours", c.cheapest->hours},
                   {"usd", optional_number(c.cheapest->usd)},
                   {"flops", c.flops},
                   {"steps", c.steps},
                   {"run", {{"epochs", c.run.epochs}, {"global_batch", c.run.global_batch}, {"samples", c.run.samples}}},
                   {"cards", per_card}};
  } else {
    out["cost"] = nullptr;
  }
  Json acts = Json::array();
  for (const auto& a : p.activations) {
    if (!a.full_bytes && !a.lora_bytes) continue;
    Json saved = Json::array();
    for (const auto& t : a.full_saved)
      if (t.elements) saved.push_back({{"what", t.what}, {"bytes_per_sample", t.bytes(1)}});
    acts.push_back({{"node", a.node},
                    {"full_bytes_per_sample", a.full_bytes},
                    {"lora_bytes_per_sample", a.lora_bytes},
                    {"full_saved", saved}});
  }
  out["activations"] = acts;
  out["notes"] = p.notes;
  Json catalogue = Json::array();
  for (const auto& c : p.card_catalogue)
    catalogue.push_back({{"card", c.name},
                         {"memory_bytes", c.memory_bytes},
                         {"dense_tflops_16bit", c.dense_tflops},
                         {"bandwidth_gbps", c.bandwidth_gbps},
                         {"usd_per_hour", optional_number(c.usd_per_hour)},
                         {"source", c.source}});
  out["card_catalogue"] = catalogue;
  Json curve = Json::array();
  for (const auto& b : p.batch_curve)
    curve.push_back({{"batch", b.batch}, {"full_device_bytes", b.full_device_bytes}, {"lora_device_bytes", b.lora_device_bytes}});
  out["batch_curve"] = curve;
  return out;
}

}  // namespace neurarch::render
