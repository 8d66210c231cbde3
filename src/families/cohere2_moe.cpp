// Cohere2 MoE (models/cohere2_moe/modular_cohere2_moe.py + configuration_cohere2_moe.py, transformers 5.24.0):
// Command R7B's parallel block (cohere2.cpp: one input norm feeding attention and MLP side by side, head_dim as its
// own key, sliding windows) with an RMSNorm when rms_norm_eps is set (else Cohere's bias-free LayerNorm) and a
// mixture of experts on the layers mlp_layer_types calls "sparse": router `mlp.gate`, num_experts experts of
// intermediate_size, and with num_shared_experts > 0 one shared MLP of intermediate_size x num_shared_experts.
// The "dense" layers (default: the first first_k_dense_replace, 0 by default) are gated MLPs of
// prefix_dense_intermediate_size (null: intermediate_size). Without layer_types the dense prefix and the rest each
// repeat their own sliding pattern; RoPE only on sliding layers and, with prefix_dense_sliding_window_pattern 1,
// on the dense ones.
#include <nlohmann/json.hpp>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace cohere2_moe_impl {
namespace {

std::vector<std::int64_t> attention_windows(const Config& c, std::int64_t layers, std::int64_t dense_prefix,
                                            std::int64_t prefix_pattern) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  const std::int64_t pattern = c.dim({"sliding_window_pattern"}, 4);
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < layers; ++i) {
    const bool prefix = i < dense_prefix;
    const std::int64_t position = prefix ? i : i - dense_prefix;
    const std::int64_t every = prefix ? prefix_pattern : pattern;
    out.push_back(every > 0 && (position + 1) % every != 0 ? window : 0);
  }
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 8192, .intermediate = 22528, .layers = 40, .heads = 64, .head_dim = 128,
          .positions = 8192, .activation = "silu", .tie_word_embeddings = true});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const auto* rms = c.raw({"rms_norm_eps"});
  s.norm = rms && !rms->is_null() ? blocks::NormKind::RMSNorm : blocks::NormKind::LayerNorm;
  s.parallel = true;
  s.names.pre_ffn_norm.clear();

  // first_k_dense_replace is a construction argument the config does not keep; saved configs list the layers.
  const std::int64_t dense_prefix = c.integer({"first_k_dense_replace"}, 0);
  const std::int64_t prefix_pattern = c.integer({"prefix_dense_sliding_window_pattern"}, 1);
  std::vector<bool> sparse = moe::sparse_layers_by_type(c, s.layers, [&] { return dense_prefix; });
  s.windows = attention_windows(c, s.layers, dense_prefix, prefix_pattern);
  for (std::size_t i = 0; i < sparse.size(); ++i)
    s.rope_layers.push_back(s.windows[i] > 0 || (!sparse[i] && prefix_pattern == 1));

  const std::int64_t shared = c.integer({"num_shared_experts"}, 0);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.dim({"num_experts"}, 8), .top_k = c.integer({"num_experts_per_tok"}, 2),
                             .activation = s.activation, .shared_intermediate = s.intermediate * shared};
  const auto* prefix_width = c.raw({"prefix_dense_intermediate_size"});
  const std::int64_t dense_width = prefix_width && !prefix_width->is_null()
                                       ? c.dim({"prefix_dense_intermediate_size"})
                                       : s.intermediate;
  const auto hidden = s.hidden;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      std::move(sparse), moe::experts_under(base, "mlp", shared > 0 ? "shared_experts" : ""),
      [hidden, dense_width, activation](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                        const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "mlp", hidden, dense_width, activation);
      });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace cohere2_moe_impl

const Family& cohere2_moe_family() {
  static const Family family{"cohere2_moe", "models/cohere2_moe/modeling_cohere2_moe.py",
                             classes("Cohere2Moe", {heads::ForCausalLM}), cohere2_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
