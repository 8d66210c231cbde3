// Kolibri 1 (models/kolibri1/modular_kolibri1.py + configuration_kolibri1.py, transformers 5.24.0): GLM-4's layer
// (a norm before and after each sublayer) around EXAONE 4.0's attention (per-head q/k RMSNorms, no biases, sliding
// windows by layer_types, default every fifth layer full) and, on every layer, a mixture of num_experts experts of
// moe_intermediate_size with one shared MLP of shared_expert_intermediate_size; the router adds an fp32
// e_score_correction_bias to its logits when picking experts. The checkpoint names what 5.24 renames on load:
// post_attn_norm / post_ffn_norm (post_self_attn_layernorm / post_mlp_layernorm) and `moe.router.expert_bias`
// (mlp.gate.e_score_correction_bias); the experts are one module each.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace kolibri1_impl {
namespace {

std::vector<std::int64_t> attention_windows(const Config& c, std::int64_t layers) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 513);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), window);
  for (std::int64_t i = 4; i < layers; i += 5) out[static_cast<std::size_t>(i)] = 0;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128000, .hidden = 2560, .intermediate = 6144, .layers = 50, .heads = 48, .kv_heads = 4,
          .head_dim = 128, .positions = 262144, .activation = "silu", .tie_word_embeddings = false});
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.windows = attention_windows(c, s.layers);
  s.names.post_attn_norm = "post_attn_norm";
  s.names.post_ffn_norm = "post_ffn_norm";

  const std::int64_t experts = c.dim({"num_experts"}, 384);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 512),
                             .experts = experts, .top_k = c.integer({"num_experts_per_tok"}, 6),
                             .activation = s.activation,
                             .shared_intermediate = c.dim({"shared_expert_intermediate_size"}, 512)};
  auto hook = moe::layer_hook({}, moe::experts_under(base, "mlp", "shared_experts"));
  s.mlp_override = [hook, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                   const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    gb.buffer(out, (layer / "moe" / "router")("expert_bias"), {experts}, DType::F32);
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace kolibri1_impl

const Family& kolibri1_family() {
  static const Family family{"kolibri1", "models/kolibri1/modeling_kolibri1.py",
                             classes("Kolibri1", {heads::ForCausalLM}), kolibri1_impl::build};
  return family;
}

}  // namespace neurarch::families
