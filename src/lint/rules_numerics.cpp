// Settings that run but compute something other than what the model was trained to compute:
// float16 on bfloat16-trained families, norm eps that vanishes or dominates, RoPE bases too
// small for the context they claim, softcapping dropped or set where nothing reads it.
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "lint/facts.hpp"
#include "lint/rules.hpp"
#include "lint/thresholds.hpp"

namespace neurarch::lint::checks {

using graph::Node;

namespace {

struct Eps {
  std::string key;
  double value = 0;
};

// Every norm eps the config spells out (families may read more than one).
std::vector<Eps> norm_eps(const Context& c) {
  std::vector<Eps> out;
  for (auto k : facts::spellings("norm_eps"))
    if (auto v = c.number(k)) out.push_back({std::string(k), *v});
  return out;
}

const Node* first_norm(const Context& c) { return c.first({graph::NodeType::LayerNorm, graph::NodeType::RMSNorm}); }

// Rotated dimensions per head: head_dim, or the rotary fraction of it (GPT-NeoX rotary_pct, Phi).
std::int64_t rotary_dims(const Context& c, const Node& attention) {
  double fraction = 1.0;
  for (auto k : {"partial_rotary_factor", "rotary_pct"})
    if (auto v = c.number(k); v && *v > 0 && *v <= 1) fraction = *v;
  auto d = static_cast<std::int64_t>(static_cast<double>(attention.attention->head_dim) * fraction);
  return d / 2 * 2;
}

double rope_theta(const Context& c) {
  for (auto k : facts::spellings("rope_theta"))
    if (auto v = c.number(k)) return *v;
  return limits::kDefaultRopeTheta;
}

std::string rope_theta_key(const Context& c) {
  for (auto k : facts::spellings("rope_theta"))
    if (c.value(k)) return std::string(k);
  return "rope_theta";
}

}  // namespace

Hits fp16_on_bf16_model(const Context& c) {
  const auto* family = facts::find_bf16_trained(c.model_type());
  if (!family || c.declared_dtype() != DType::F16) return {};
  return {{"",
           fmt::format("torch_dtype {} on {}, a family trained in bfloat16 ({}): activations past float16's "
                       "range (65504) become inf, and fine-tuning in float16 is a known source of NaN",
                       c.declared_dtype_text(), c.model_type(), family->source),
           "load and fine-tune with torch_dtype=torch.bfloat16 (and write \"torch_dtype\": \"bfloat16\"); on cards "
           "without bfloat16, run the norms and attention scores in float32"}};
}

Hits norm_eps_invalid(const Context& c) {
  Hits hits;
  const Node* n = first_norm(c);
  for (const auto& e : norm_eps(c)) {
    if (e.value <= 0)
      hits.push_back({n ? n->name : std::string(),
                      fmt::format("{} {:g} leaves no floor under the variance: a constant row (padding, a dead "
                                  "channel) divides 0 by 0 and the NaN spreads through the residual stream",
                                  e.key, e.value),
                      fmt::format("set {} to 1e-5 (Llama, RoBERTa) or 1e-6", e.key)});
    else if (e.value >= limits::kNormEpsMax)
      hits.push_back({n ? n->name : std::string(),
                      fmt::format("{} {:g} is comparable to the variance it guards: the norm no longer normalises "
                                  "(published models use 1e-12 to 1e-5)",
                                  e.key, e.value),
                      fmt::format("set {} to 1e-5 or 1e-6", e.key)});
  }
  return hits;
}

Hits norm_eps_underflows_fp16(const Context& c) {
  if (c.declared_dtype() != DType::F16) return {};
  Hits hits;
  const Node* n = first_norm(c);
  for (const auto& e : norm_eps(c))
    if (e.value > 0 && e.value < limits::kFp16SmallestSubnormal / 2)
      hits.push_back({n ? n->name : std::string(),
                      fmt::format("{} {:g} rounds to 0 in float16 (smallest subnormal 6e-8): a kernel that keeps "
                                  "the norm in float16 (fp16 ONNX/TensorRT exports, fused fp16 norms) has no floor "
                                  "under the variance; PyTorch's own norms accumulate in float32 and are unaffected",
                                  e.key, e.value),
                      fmt::format("keep the norms in float32 when exporting in float16, or set {} to at least 1e-7 "
                                  "(check the model's outputs after the change)",
                                  e.key)});
  return hits;
}

Hits rope_theta_invalid(const Context& c) {
  if (!c.rotary()) return {};
  for (auto k : facts::spellings("rope_theta"))
    if (auto v = c.number(k); v && *v <= 1.0)
      return {{"",
               fmt::format("{} {:g}: RoPE frequencies theta^(-2i/d) must fall with i, which needs theta > 1 (at 1 "
                           "every pair rotates alike; at or below 0 they are inf or NaN)",
                           k, *v),
               fmt::format("set {} to the base the model was trained with (10000 for Llama 2, 500000 for Llama 3)",
                           k)}};
  return {};
}

Hits rope_theta_short_for_context(const Context& c) {
  const Node* a = c.first_attention();
  auto positions = c.max_positions();
  if (!c.rotary() || !a || !positions) return {};
  const double theta = rope_theta(c);
  const std::int64_t d = rotary_dims(c, *a);
  if (theta <= 1.0 || d < 4) return {};
  // Scaling stretches the slowest wavelength by its factor; compare against the unscaled context.
  double context = static_cast<double>(*positions);
  std::string scaled;
  if (const auto* s = c.value("rope_scaling"); s && s->is_object()) {
    if (auto it = s->find("original_max_position_embeddings"); it != s->end() && it->is_number())
      context = it->get<double>();
    else if (auto f = s->find("factor"); f != s->end() && f->is_number() && f->get<double>() >= 1)
      context /= f->get<double>();
    scaled = " after rope_scaling";
  } else if (auto orig = c.number("original_max_position_embeddings")) {
    context = *orig;
  }
  const double exponent = static_cast<double>(d - 2) / static_cast<double>(d);
  const double wavelength = 2 * std::numbers::pi * std::pow(theta, exponent);
  if (context <= wavelength) return {};
  const double needed = std::pow(context / (2 * std::numbers::pi), 1.0 / exponent);
  // Three significant digits, rounded up, reads better than the exact bound.
  const double step = std::pow(10.0, std::floor(std::log10(needed)) - 2);
  const double at_least = std::ceil(needed / step) * step;
  const double suggestion = std::pow(10.0, std::ceil(std::log10(needed)));
  return {{a->name,
           fmt::format("{} {:g} gives a longest rotary wavelength of {:.0f} positions (2π·θ^({}/{}) over {} rotated "
                       "dims), shorter than the {:.0f}-position context{} ({} {}): the slowest dimension pair wraps "
                       "around and far positions alias near ones",
                       rope_theta_key(c), theta, wavelength, d - 2, d, d, context, scaled,
                       c.key_for("max_position_embeddings"), *positions),
           fmt::format("raise {} to at least {:.0f} (e.g. {:.0f}; Code Llama and Mistral v0.2 use 1e6 for 16k-32k "
                       "contexts) and train at that base, or set {} to the context the model was trained for",
                       rope_theta_key(c), at_least, suggestion, c.key_for("max_position_embeddings"))}};
}

Hits rope_scaling_factor_below_one(const Context& c) {
  const auto* s = c.value("rope_scaling");
  if (!s || !s->is_object() || !c.rotary()) return {};
  auto f = s->find("factor");
  if (f == s->end() || !f->is_number() || f->get<double>() >= 1.0) return {};
  return {{"",
           fmt::format("rope_scaling factor {:g} is below 1: it squeezes positions closer than the model was "
                       "trained to see them instead of stretching the context (transformers logs that factor must be "
                       ">= 1)",
                       f->get<double>()),
           "set factor to (target context) / (trained context), which is at least 1, or remove rope_scaling"}};
}

Hits softcapping_ignored(const Context& c) {
  if (facts::reads_softcapping(c.model_type())) return {};
  Hits hits;
  for (auto key : {"attn_logit_softcapping", "final_logit_softcapping"})
    if (auto v = c.number(key))
      hits.push_back({"",
                      fmt::format("{} {:g} is set, but {}'s modeling code never reads it: logits are not capped, "
                                  "unlike in the model that set it (Gemma 2)",
                                  key, *v, c.model_type()),
                      fmt::format("use the model_type that caps logits (gemma2), or remove {}", key)});
  return hits;
}

Hits softcapping_missing(const Context& c) {
  const auto* trained = facts::trained_with_softcapping(c.model_type());
  if (!trained) return {};
  Hits hits;
  const std::pair<const char*, double> wanted[] = {{"attn_logit_softcapping", trained->attention},
                                                   {"final_logit_softcapping", trained->final}};
  for (const auto& [key, value] : wanted) {
    auto it = c.config().find(key);
    // Absent keys take the config class's default (the trained value); only an explicit null turns capping off.
    if (it == c.config().end() || !it->is_null()) continue;
    hits.push_back({"",
                    fmt::format("{} is null: {} was trained with it at {:g} (Gemma 2 report), so uncapped logits "
                                "differ from training and can overflow in half precision",
                                key, c.model_type(), value),
                    fmt::format("set \"{}\": {:.1f}", key, value)});
  }
  return hits;
}

}  // namespace neurarch::lint::checks
