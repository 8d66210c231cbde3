// Falcon-H1 (models/falcon_h1/modeling_falcon_h1.py + configuration_falcon_h1.py, transformers 4.57.6): every
// layer runs attention and a Mamba-2 mixer side by side on the same normed input and adds both outputs to the
// residual, then a gated MLP (`feed_forward`). The mixer is mamba_d_ssm wide (null: mamba_expand x hidden);
// its gated RMSNorm exists only with mamba_rms_norm; in_proj's bias is mamba_proj_bias, out_proj's
// projectors_bias. The muP multipliers (embedding, attention in/out, key, ssm in/out, ssm_multipliers,
// mlp_multipliers, lm_head) scale activations and are not parameters; mup_vector is a non-persistent buffer.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/hybrid_common.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace falcon_h1_impl {
namespace {

using namespace blocks;
using graph::NodeType;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = hybrid::llama_shaped_spec(c, 8192);

  // An explicit null mamba_d_ssm means expand x hidden; an absent one, the config class's default (1024).
  const auto& j = c.json();
  const auto d_ssm = j.find("mamba_d_ssm");
  const bool d_ssm_null = d_ssm != j.end() && d_ssm->is_null();
  MambaMixerSpec mixer = hybrid::mamba2_mixer(
      c, s.hidden, {.heads = 128, .state = 256, .inner = d_ssm_null ? 0 : c.dim({"mamba_d_ssm"}, 1024)});
  mixer.gated_norm = c.flag({"mamba_rms_norm"}, false);
  mixer.out_bias = c.flag({"projectors_bias"}, false);

  s.attention_override = [s, mixer](GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& layer) {
    const Scope attn = layer / "self_attn";
    auto a = attention(gb, x, BlockNames{i}.attention(),
                       {.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                        .causal = true, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                        .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = s.qkv_bias, .o_bias = s.o_bias,
                        .require_divisible = false, .dropout = s.attention_dropout, .rotary = true});
    MambaMixerSpec m = mixer;
    m.module = layer / "mamba";
    auto ssm = mamba_mixer(gb, x, fmt::format("Mixer_{}", i), m);
    return add(gb, a, ssm, fmt::format("Mixer_Sum_{}", i));
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace falcon_h1_impl

const Family& falcon_h1_family() {
  static const Family family{"falcon_h1", "models/falcon_h1/modeling_falcon_h1.py",
                             classes("FalconH1", {heads::ForCausalLM}), falcon_h1_impl::build};
  return family;
}

}  // namespace neurarch::families
