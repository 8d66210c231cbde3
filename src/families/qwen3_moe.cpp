// Qwen3-MoE (models/qwen3_moe/modeling_qwen3_moe.py + configuration_qwen3_moe.py, transformers
// 4.57.6): Qwen3's attention (RMSNorm over each head of q and k, attention_bias on q/k/v/o; the
// config has no head_dim, so hidden / heads unless a file sets one) with a sparse MLP on the layers
// decoder_sparse_step and mlp_only_layers choose: router `gate` [num_experts, hidden] and
// experts.<i> of moe_intermediate_size, no shared expert; other layers keep a dense MLP of
// intermediate_size. The config keeps sliding_window only with use_sliding_window.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace qwen3_moe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151936, .hidden = 2048, .intermediate = 6144, .layers = 24, .heads = 32, .kv_heads = 4,
          .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.window = c.flag({"use_sliding_window"}, false) ? decoder::window_or_none(c, "sliding_window", 4096) : 0;
  const std::int64_t experts = c.integer({"num_experts"}, 128);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 768),
                             .experts = experts, .top_k = c.integer({"num_experts_per_tok"}, 8),
                             .activation = s.activation};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      moe::sparse_layers_by_step(c, s.layers, experts),
      moe::experts_under(base),
      moe::dense_under(hidden, intermediate, activation));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace qwen3_moe_impl

const Family& qwen3_moe_family() {
  static const Family family{"qwen3_moe", "models/qwen3_moe/modeling_qwen3_moe.py",
                             classes("Qwen3Moe", {heads::ForCausalLM, heads::ForSequenceClassification}), qwen3_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
