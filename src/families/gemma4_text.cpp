// Gemma 4 text (models/gemma4/modeling_gemma4.py + configuration_gemma4.py, transformers 5.24.0): Gemma 3n's
// stack without AltUp or Laurel (one residual stream), keeping per-layer embeddings (hidden_size_per_layer_input,
// 0 switches them off) and adding:
// - wider heads on full-attention layers: per_layer_config's head_dim / num_key_value_heads overrides as saved
//   configs carry them, else global_head_dim (512) and, with attention_k_eq_v, num_global_key_value_heads;
// - attention_k_eq_v: full-attention layers have no v_proj (the keys serve as values);
// - the last num_kv_shared_layers layers reuse keys and values: no k_proj, v_proj or k_norm, and with
//   use_double_wide_mlp twice the MLP width;
// - enable_moe_block: experts beside the dense MLP (router.{proj, scale, per_expert_scale}, stacked
//   experts.{gate_up_proj, down_proj}, three more norms);
// - a persistent [1] layer_scalar buffer per layer; the last layer is always global; every 6th layer global.
// use_bidirectional_attention "all" drops the causal mask and halves the window (w // 2 + 1).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/gemma3n_text.hpp"

namespace neurarch::families {
namespace gemma4_text_impl {
namespace {

// The per-layer overrides of head_dim and num_key_value_heads (keys are layer indices).
void per_layer_overrides(const Config& c, const nlohmann::json& overrides,
                         std::vector<gemma3n::LayerAttention>& layers) {
  if (!overrides.is_object())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'per_layer_config'", c.origin()),
                "expected an object of layer index -> overrides");
  for (const auto& [key, entry] : overrides.items()) {
    std::size_t at = 0;
    try {
      at = std::stoul(key);
    } catch (const std::exception&) {
      at = layers.size();
    }
    if (at >= layers.size() || !entry.is_object())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'per_layer_config.{}'", c.origin(), key),
                  fmt::format("expected overrides of one of the {} layers", layers.size()));
    for (const auto& [field, target] : {std::pair{"head_dim", &layers[at].head_dim},
                                        std::pair{"num_key_value_heads", &layers[at].kv_heads}})
      if (auto it = entry.find(field); it != entry.end()) {
        if (!it->is_number_integer() || it->get<std::int64_t>() <= 0)
          throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'per_layer_config.{}.{}'", c.origin(), key, field),
                      fmt::format("expected a positive integer, found {}", it->dump()));
        *target = it->get<std::int64_t>();
      }
  }
}

gemma3n::TextSpec text_spec(const Config& c) {
  gemma3_text::Defaults d;
  d.llama = {.vocab = 262144, .hidden = 2304, .intermediate = 9216, .layers = 30, .heads = 8, .kv_heads = 4,
             .head_dim = 256, .positions = 131072, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true};
  d.window = 512;
  d.global_every = 6;
  gemma3n::TextSpec t;
  t.decoder = gemma3_text::spec(c, d);
  decoder::DecoderSpec& s = t.decoder;
  s.windows.back() = 0;  // the config forces the last layer global
  const auto* bidirectional = c.raw({"use_bidirectional_attention"});
  const bool all_bidirectional =
      bidirectional && bidirectional->is_string() && bidirectional->get<std::string>() == "all";
  const std::vector<std::int64_t> types = s.windows;  // > 0: sliding
  if (all_bidirectional)
    for (auto& w : s.windows)
      if (w > 0) w = w / 2 + 1;

  const std::int64_t first_shared = gemma3n::first_shared_layer(c, s, 0);
  const bool k_eq_v = c.flag({"attention_k_eq_v"}, false);
  t.attention.assign(static_cast<std::size_t>(s.layers), gemma3n::LayerAttention{s.head_dim, s.kv_heads, true, true});
  if (const auto* overrides = c.raw({"per_layer_config"}); overrides && !overrides->is_null()) {
    per_layer_overrides(c, *overrides, t.attention);
  } else {
    const std::int64_t global_head_dim = c.dim({"global_head_dim"}, 512);
    const auto* global_kv = c.raw({"num_global_key_value_heads"});
    const std::int64_t global_kv_heads =
        k_eq_v && global_kv && !global_kv->is_null() ? c.dim({"num_global_key_value_heads"}) : s.kv_heads;
    for (std::size_t i = 0; i < t.attention.size(); ++i)
      if (types[i] == 0) t.attention[i] = {global_head_dim, global_kv_heads, true, true};
  }
  const std::int64_t width = c.dim({"intermediate_size"}, d.llama.intermediate);
  const bool double_wide = c.flag({"use_double_wide_mlp"}, false);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    auto& la = t.attention[static_cast<std::size_t>(i)];
    const bool reuses = i >= first_shared;
    la.keys = !reuses;
    la.values = !reuses && !(k_eq_v && types[static_cast<std::size_t>(i)] == 0);
    t.intermediates.push_back(double_wide && reuses ? 2 * width : width);
  }

  t.per_layer_width = c.integer({"hidden_size_per_layer_input"}, 256);
  if (t.per_layer_width < 0)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'hidden_size_per_layer_input'", c.origin()),
                fmt::format("must be 0 (none) or a positive size, found {}", t.per_layer_width));
  if (t.per_layer_width > 0) t.per_layer_vocab = c.dim({"vocab_size_per_layer_input"}, 262144);
  t.layer_scalar = true;
  if (c.flag({"enable_moe_block"}, false))
    t.experts = gemma3n::Experts{.experts = c.dim({"num_experts"}), .top_k = c.dim({"top_k_experts"}),
                                 .intermediate = c.dim({"moe_intermediate_size"})};
  return t;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  auto out = gemma3n::build_text(in, b, text_spec(c));
  if (const auto* bidirectional = c.raw({"use_bidirectional_attention"});
      bidirectional && bidirectional->is_string() && bidirectional->get<std::string>() == "all")
    for (int i = 0; i <= out.node; ++i)
      if (auto& attrs = b.at(graph::Value{i, {}}).attention) attrs->causal = false;
  return out;
}

}  // namespace
}  // namespace gemma4_text_impl

const Family& gemma4_text_family() {
  static const Family family{"gemma4_text", "models/gemma4/modeling_gemma4.py",
                             {{"Gemma4TextModel", Head::Base}, {"Gemma4ForCausalLM", Head::CausalLM}}, gemma4_text_impl::build};
  return family;
}

}  // namespace neurarch::families
