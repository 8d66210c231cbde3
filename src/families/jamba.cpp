// Jamba (models/jamba/modeling_jamba.py + configuration_jamba.py, transformers 4.47.1): a decoder whose
// layers are attention (i % attn_layer_period == attn_layer_offset) or Mamba-1 mixers (the rest), each
// followed by a mixture of experts (i % expert_layer_period == expert_layer_offset, when num_experts > 1) or a
// dense gated MLP, both under `feed_forward`. No positional encoding: attention runs without RoPE. The mixer
// (`mamba`) is Mamba's with RMSNorms on dt ([dt_rank]), B and C ([state]) before the scan; inner is
// mamba_expand x hidden, dt_rank "auto" is ceil(hidden / 16), mamba_proj_bias covers in_proj and out_proj.
// Norms: input_layernorm, pre_ff_layernorm, final_layernorm.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/ssm.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace jamba_impl {
namespace {

using namespace blocks;

std::int64_t dt_rank(const Config& c, std::int64_t hidden) {
  const auto* raw = c.raw({"mamba_dt_rank"});
  if (!raw || raw->is_string()) return (hidden + 15) / 16;
  return c.dim({"mamba_dt_rank"});
}

bool periodic(std::int64_t i, std::int64_t period, std::int64_t offset) { return period > 0 && i % period == offset; }

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 65536, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8,
          .positions = 262144, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.rotary = false;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.window = decoder::window_or_none(c, "sliding_window", 0);
  s.names.mlp = "feed_forward";
  s.names.pre_ffn_norm = "pre_ff_layernorm";
  s.names.final_norm = "final_layernorm";

  const std::int64_t attn_period = c.integer({"attn_layer_period"}, 8);
  const std::int64_t attn_offset = c.integer({"attn_layer_offset"}, 4);
  MambaMixerSpec mixer{.version = 1,
                       .hidden = s.hidden,
                       .inner = static_cast<std::int64_t>(c.number({"mamba_expand"}, 2) * static_cast<double>(s.hidden)),
                       .state = c.dim({"mamba_d_state"}, 16),
                       .conv_kernel = c.dim({"mamba_d_conv"}, 4),
                       .time_step_rank = dt_rank(c, s.hidden),
                       .bias = c.flag({"mamba_proj_bias"}, false),
                       .conv_bias = c.flag({"mamba_conv_bias"}, true)};
  s.attention_override = [mixer, attn_period, attn_offset](GraphBuilder& gb, const Value& x, std::int64_t i,
                                                           const Scope& layer) {
    if (periodic(i, attn_period, attn_offset)) return Value{};
    MambaMixerSpec m = mixer;
    m.module = layer / "mamba";
    auto h = mamba_mixer(gb, x, fmt::format("Mixer_{}", i), m);
    gb.parameter(h, (m.module / "dt_layernorm")("weight"), {m.time_step_rank}, graph::TensorRole::Norm);
    gb.parameter(h, (m.module / "b_layernorm")("weight"), {m.state}, graph::TensorRole::Norm);
    gb.parameter(h, (m.module / "c_layernorm")("weight"), {m.state}, graph::TensorRole::Norm);
    return h;
  };

  const std::int64_t experts = c.integer({"num_experts"}, 16);
  const std::int64_t expert_period = c.integer({"expert_layer_period"}, 2);
  const std::int64_t expert_offset = c.integer({"expert_layer_offset"}, 1);
  std::vector<bool> sparse(static_cast<std::size_t>(s.layers), false);
  for (std::int64_t i = 0; i < s.layers; ++i)
    sparse[static_cast<std::size_t>(i)] = experts > 1 && periodic(i, expert_period, expert_offset);
  const MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate, .experts = experts,
                     .top_k = c.integer({"num_experts_per_tok"}, 2), .activation = s.activation};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      sparse,
      [base](std::int64_t, const Scope& layer) {
        MoESpec m = base;
        m.module = layer / "feed_forward";
        m.router = m.module / "router";
        m.experts_module = m.module / "experts";
        return m;
      },
      [hidden, intermediate, activation](GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "feed_forward", hidden, intermediate, activation);
      });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace jamba_impl

const Family& jamba_family() {
  static const Family family{"jamba", "models/jamba/modeling_jamba.py",
                             classes("Jamba", {heads::ForCausalLM, heads::ForSequenceClassification}), jamba_impl::build};
  return family;
}

}  // namespace neurarch::families
