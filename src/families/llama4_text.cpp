// Llama 4's language model (models/llama4/modeling_llama4.py + configuration_llama4.py, transformers
// 4.57.6: Llama4TextModel, Llama4ForCausalLM). Llama's layer with the MLP module called
// `feed_forward`. Layers in moe_layers (else every interleave_moe_layer_step-th) hold a mixture of
// experts: a bias-free router, the experts as bare parameters used as x @ W (gate_up_proj [experts,
// hidden, 2 x intermediate_size], down_proj [experts, intermediate_size, hidden]) and an always-on
// shared_expert of intermediate_size; other layers a dense gated MLP of intermediate_size_mlp. The
// reference multiplies every token into every expert (the unchosen with a zero sigmoid score) and
// runs all of them, so the MoE node dispatches every token to every expert: activations and FLOPs
// follow that, active parameters stay top-k (README). no_rope_layers marks
// the layers that apply RoPE (every no_rope_layer_interval-th does not); those also L2-normalise q and
// k, a norm without weights. chunked_attention layers attend within attention_chunk_size blocks.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "families/config_lists.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace llama4_text_impl {
namespace {

// The config's no_rope_layers (1 = RoPE), or, when absent or empty, every interval-th layer without.
std::vector<bool> rope_layers(const Config& c, std::int64_t layers) {
  const auto listed = index_list(c, "no_rope_layers");  // 0/1 per layer
  const std::int64_t interval = c.integer({"no_rope_layer_interval"}, 4);
  std::vector<bool> out(static_cast<std::size_t>(layers), true);
  for (std::int64_t i = 0; i < layers; ++i) {
    const auto at = static_cast<std::size_t>(i);
    if (!listed.empty()) out[at] = at < listed.size() ? listed[at] != 0 : true;
    else if (interval > 0) out[at] = (i + 1) % interval != 0;
  }
  return out;
}

std::vector<bool> moe_layers(const Config& c, std::int64_t layers, std::int64_t experts) {
  std::vector<bool> out(static_cast<std::size_t>(layers), false);
  if (experts <= 0) return out;
  if (const auto* v = c.raw({"moe_layers"}); v && v->is_array()) {
    for (auto i : index_list(c, "moe_layers"))
      if (i >= 0 && i < layers) out[static_cast<std::size_t>(i)] = true;
    return out;
  }
  const std::int64_t step = c.integer({"interleave_moe_layer_step"}, 1);
  // range(step - 1, layers, step): a step below 1 raises in the reference; no layer is sparse here.
  for (std::int64_t i = step - 1; step > 0 && i < layers; i += step) out[static_cast<std::size_t>(i)] = true;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 202048, .hidden = 5120, .intermediate = 8192, .layers = 48, .heads = 40, .kv_heads = 8,
          .head_dim = 128, .positions = 4096 * 32, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.rope_layers = rope_layers(c, s.layers);
  s.names.mlp = "feed_forward";
  const std::int64_t experts = c.integer({"num_local_experts"}, 16);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate, .experts = experts,
                             .top_k = c.integer({"num_experts_per_tok"}, 1), .dispatched = experts,
                             .activation = s.activation,
                             .shared_intermediate = s.intermediate};
  const std::int64_t hidden = s.hidden, dense_width = c.dim({"intermediate_size_mlp"}, 16384);
  const std::string activation = s.activation;
  s.mlp_override = moe::layer_hook(
      moe_layers(c, s.layers, experts),
      [base](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = base;
        m.module = layer / "feed_forward";
        m.router = m.module / "router";
        m.bare_experts = m.module / "experts";
        m.shared = m.module / "shared_expert";
        return m;
      },
      [hidden, dense_width, activation](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                        const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "feed_forward", hidden, dense_width, activation);
      });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace llama4_text_impl

const Family& llama4_text_family() {
  static const Family family{"llama4_text",
                             "models/llama4/modeling_llama4.py",
                             {{"Llama4TextModel", Head::Base}, {"Llama4ForCausalLM", Head::CausalLM}},
                             llama4_text_impl::build};
  return family;
}

}  // namespace neurarch::families
