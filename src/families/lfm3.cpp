// LFM3 (models/lfm3/modular_lfm3.py + configuration_lfm3.py, transformers 5.24.0): LFM2's hybrid stack (lfm2.hpp:
// gated short convolutions on the layers layer_types calls "conv", feed_forward w1/w3/w2 at intermediate_size
// unshrunk, operator_norm / ffn_norm / embedding_norm, tied by default) with Qwen3's attention (q/k/v/o_proj, per-head
// q_norm / k_norm) on the others, sliding_window on the "sliding_attention" ones, and, with use_sandwich_norm, an
// RMSNorm after each sublayer (post_operator_norm, post_ffn_norm). With use_attention_gate each head's output is
// scaled by a sigmoid gate from `gate_proj` [heads, hidden] (5.24's g_proj, renamed in the checkpoint). Default
// layer_types: layer i attends fully when i % 4 == 2, slides when i % 4 == 0 and i > 0, else convolves.
#include <nlohmann/json.hpp>

#include "families/lfm2.hpp"

namespace neurarch::families {
namespace lfm3_impl {
namespace {

enum class Mixer { Conv, Full, Sliding };

std::vector<Mixer> layer_mixers(const Config& c, std::int64_t layers) {
  std::vector<Mixer> out(static_cast<std::size_t>(layers), Mixer::Conv);
  const auto* types = c.raw({"layer_types"});
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (types && types->is_array()) {
      const std::string t = i < types->size() && (*types)[i].is_string() ? (*types)[i].get<std::string>() : "";
      out[i] = t == "conv" ? Mixer::Conv : t == "sliding_attention" ? Mixer::Sliding : Mixer::Full;
    } else {
      out[i] = i % 4 == 2 ? Mixer::Full : i % 4 == 0 && i > 0 ? Mixer::Sliding : Mixer::Conv;
    }
  }
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s =
      lfm2::spec(c, {.vocab = 128000, .hidden = 2048, .intermediate = 7680, .layers = 24, .heads = 16, .kv_heads = 4,
                     .head_dim = 128, .positions = 128000, .activation = "silu", .tie_word_embeddings = true});
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  if (c.flag({"use_sandwich_norm"}, true)) {
    s.names.post_attn_norm = "post_operator_norm";
    s.names.post_ffn_norm = "post_ffn_norm";
  }
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 256);
  const std::int64_t kernel = c.integer({"conv_L_cache"}, 7);
  const bool conv_bias = c.flag({"conv_bias"}, false);
  const bool bias = c.flag({"attention_bias"}, false);
  const bool gate = c.flag({"use_attention_gate"}, true);
  s.attention_override = [s, mixers = layer_mixers(c, s.layers), window, kernel, conv_bias, bias, gate](
                             graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                             const graph::Scope& layer) {
    const Mixer kind = mixers[static_cast<std::size_t>(i)];
    if (kind == Mixer::Conv) return lfm2::short_conv(gb, x, i, layer / "conv", s.hidden, kernel, conv_bias);
    const graph::Scope attn = layer / "self_attn";
    blocks::AttentionSpec a{.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                            .causal = true, .window = kind == Mixer::Sliding ? window : 0, .module = attn,
                            .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj",
                            .qkv_bias = bias, .o_bias = bias, .require_divisible = false,
                            .dropout = s.attention_dropout, .rotary = true, .softmax_fp32 = true};
    auto h = blocks::attention(gb, x, blocks::BlockNames{i}.attention(), a);
    for (const char* norm : {"q_norm", "k_norm"}) gb.parameter(h, (attn / norm)("weight"), {s.head_dim}, graph::TensorRole::Norm);
    // One gate per head (not per channel): the projection's weight, applied inside the attention node.
    if (gate) blocks::linear_tensors(gb, h, attn / "gate_proj", s.hidden, s.heads, false);
    return h;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace lfm3_impl

const Family& lfm3_family() {
  static const Family family{"lfm3", "models/lfm3/modeling_lfm3.py", classes("Lfm3", {heads::ForCausalLM}), lfm3_impl::build};
  return family;
}

}  // namespace neurarch::families
