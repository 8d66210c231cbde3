// Arcee AFMoE, the Trinity models (models/afmoe/modular_afmoe.py + configuration_afmoe.py, transformers 5.24.0):
// Llama's stack with a norm before and after each sublayer (input_layernorm / post_attention_layernorm,
// pre_mlp_layernorm / post_mlp_layernorm), per-head q/k RMSNorms and a separate gate_proj whose sigmoid scales the
// heads' output before o_proj. Layers follow layer_types (default: every global_attn_every_n_layers-th full, the
// rest sliding_window); only the sliding layers apply RoPE. The first num_dense_layers keep a dense MLP; the rest
// route through `mlp.router.gate` to experts of moe_intermediate_size beside num_shared_experts shared ones, with a
// frozen fp32 expert_bias parameter [num_experts] added to the sigmoid scores when picking experts.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace afmoe_impl {
namespace {

std::vector<std::int64_t> attention_windows(const Config& c, std::int64_t layers) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 1024);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  const std::int64_t every = c.integer({"global_attn_every_n_layers"}, 4);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), 0);
  for (std::int64_t i = 0; i < layers; ++i)
    if (every == 0 || (i + 1) % every != 0) out[static_cast<std::size_t>(i)] = window;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 200192, .hidden = 2048, .intermediate = 6144, .layers = 32, .heads = 16, .head_dim = 128,
          .positions = 16384, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm = "pre_mlp_layernorm";
  s.names.post_ffn_norm = "post_mlp_layernorm";

  const std::vector<std::int64_t> windows = attention_windows(c, s.layers);
  s.attention_override = [s, bias, windows](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                            const graph::Scope& layer) {
    const graph::Scope attn = layer / "self_attn";
    const std::int64_t window = windows[static_cast<std::size_t>(i)];
    // RoPE only where the layer slides: the global layers attend without positions.
    blocks::AttentionSpec a{.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                            .causal = true, .window = window, .module = attn, .q = attn / "q_proj",
                            .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = bias,
                            .o_bias = bias, .require_divisible = false, .dropout = s.attention_dropout,
                            .rotary = window > 0, .softmax_fp32 = true};
    auto h = blocks::attention(gb, x, blocks::BlockNames{i}.attention(), a);
    for (const char* norm : {"q_norm", "k_norm"}) gb.parameter(h, (attn / norm)("weight"), {s.head_dim}, graph::TensorRole::Norm);
    // The gate is its own projection here (Qwen3-Next folds it into q_proj); the node gates the heads' output.
    blocks::linear_tensors(gb, h, attn / "gate_proj", s.hidden, s.heads * s.head_dim, false);
    gb.at(h).attention->output_gate = true;
    return h;
  };

  const std::int64_t experts = c.integer({"num_experts"}, 64);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, 1408);
  const std::int64_t shared = c.integer({"num_shared_experts"}, 2);
  const std::int64_t dense = c.integer({"num_dense_layers"}, 1);
  std::vector<bool> sparse(static_cast<std::size_t>(s.layers));
  for (std::int64_t i = 0; i < s.layers; ++i) sparse[static_cast<std::size_t>(i)] = i >= dense;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts,
                             .top_k = c.integer({"num_experts_per_tok"}, 6), .activation = s.activation,
                             .shared_intermediate = expert_width * shared};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  auto hook = moe::layer_hook(
      std::move(sparse),
      [base](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = base;
        m.module = layer / "mlp";
        m.router = m.module / "router" / "gate";
        m.experts_module = m.module / "experts";
        m.shared = m.module / "shared_experts";
        return m;
      },
      moe::dense_under(hidden, intermediate, activation));
  s.mlp_override = [hook, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                   const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    if (gb.at(out).moe) {
      // Declared with requires_grad=False: saved and loaded, never trained.
      const std::string expert_bias = (layer / "mlp")("expert_bias");
      gb.parameter(out, expert_bias, {experts}, graph::TensorRole::Bias);
      gb.freeze_if([&expert_bias](std::string_view name) { return name == expert_bias; });
    }
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace afmoe_impl

const Family& afmoe_family() {
  static const Family family{"afmoe", "models/afmoe/modeling_afmoe.py", classes("Afmoe", {heads::ForCausalLM}),
                             afmoe_impl::build};
  return family;
}

}  // namespace neurarch::families
