// Qwen3-Next (models/qwen3_next/modeling_qwen3_next.py + configuration_qwen3_next.py, transformers 5.24.0; the
// shared ground truth is 4.57.6's, the same tensors): a hybrid decoder whose layers take one token mixer each by
// layer_types (absent: three Gated DeltaNet layers, then one full-attention layer, full_attention_interval 4).
// The DeltaNet layer is `linear_attn` (in_proj_qkvz, in_proj_ba, conv1d without bias, dt_bias, A_log, a gated
// RMSNorm over each value head, out_proj); the full-attention layer is Qwen3-MoE's with q_proj twice as wide
// (each head's query, then its output gate) and rotary on partial_rotary_factor of head_dim. The MLP is
// Qwen2-MoE's sparse block with a sigmoid-gated shared expert on the layers decoder_sparse_step and
// mlp_only_layers choose, a dense MLP of intermediate_size elsewhere. The QA head keeps `transformer`.
#include "families/qwen3_next.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace neurarch::families {

namespace qwen3_next {

std::vector<bool> linear_layers(const Config& c, std::int64_t layers) {
  std::vector<bool> out(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)), false);
  if (const auto* types = c.raw({"layer_types"}); types && types->is_array()) {
    for (std::size_t i = 0; i < out.size() && i < types->size(); ++i)
      out[i] = (*types)[i].is_string() && (*types)[i].get<std::string>() == "linear_attention";
    return out;
  }
  const std::int64_t interval = c.integer({"full_attention_interval"}, 4);
  // The config class takes (i + 1) % interval; an interval of 0 raises there, so every layer attends here.
  for (std::int64_t i = 0; i < layers; ++i) out[static_cast<std::size_t>(i)] = interval > 0 && (i + 1) % interval != 0;
  return out;
}

blocks::GatedDeltaNetSpec mixer(const Config& c, std::int64_t hidden, bool separate_projections) {
  return {.hidden = hidden, .key_heads = c.dim({"linear_num_key_heads"}, 16),
          .value_heads = c.dim({"linear_num_value_heads"}, 32), .key_head_dim = c.dim({"linear_key_head_dim"}, 128),
          .value_head_dim = c.dim({"linear_value_head_dim"}, 128),
          .conv_kernel = c.integer({"linear_conv_kernel_dim"}, 4), .separate_projections = separate_projections};
}

decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults, bool separate_projections) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_output_gate = true;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const blocks::GatedDeltaNetSpec base = mixer(c, s.hidden, separate_projections);
  s.attention_override = [linear = linear_layers(c, s.layers), base](graph::GraphBuilder& b, const graph::Value& x,
                                                                      std::int64_t i, const graph::Scope& layer) {
    const auto at = static_cast<std::size_t>(i);
    if (at >= linear.size() || !linear[at]) return graph::Value{};
    blocks::GatedDeltaNetSpec m = base;
    m.module = layer / "linear_attn";
    return blocks::gated_delta_net(b, x, fmt::format("Gated_DeltaNet_{}", i), m);
  };
  return s;
}

blocks::MoESpec sparse_block(const Config& c, const decoder::DecoderSpec& s, const blocks::MoESpec& defaults) {
  return {.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, defaults.intermediate),
          .experts = c.integer({"num_experts"}, defaults.experts),
          .top_k = c.integer({"num_experts_per_tok"}, defaults.top_k), .activation = s.activation,
          .shared_intermediate = c.integer({"shared_expert_intermediate_size"}, defaults.shared_intermediate)};
}

decltype(decoder::DecoderSpec::mlp_override) mlp(std::vector<bool> sparse, const blocks::MoESpec& block,
                                                 const decoder::DecoderSpec& s) {
  return moe::layer_hook(
      std::move(sparse),
      [block](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = block;
        m.module = layer / "mlp";
        m.router = m.module / "gate";
        m.experts_module = m.module / "experts";
        m.shared = m.module / "shared_expert";
        m.shared_gate = m.module / "shared_expert_gate";
        return m;
      },
      [hidden = s.hidden, intermediate = s.intermediate, activation = s.activation](
          graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "mlp", hidden, intermediate, activation);
      });
}

}  // namespace qwen3_next

namespace qwen3_next_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = qwen3_next::spec(
      c, {.vocab = 151936, .hidden = 2048, .intermediate = 5632, .layers = 48, .heads = 16, .kv_heads = 2,
          .head_dim = 256, .positions = 32768, .activation = "silu", .tie_word_embeddings = false},
      false);
  s.qa_prefix = "transformer";
  const blocks::MoESpec block = qwen3_next::sparse_block(
      c, s, {.intermediate = 512, .experts = 512, .top_k = 10, .shared_intermediate = 512});
  s.mlp_override = qwen3_next::mlp(moe::sparse_layers_by_step(c, s.layers, block.experts), block, s);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace qwen3_next_impl

const Family& qwen3_next_family() {
  static const Family family{"qwen3_next", "models/qwen3_next/modeling_qwen3_next.py",
                             classes("Qwen3Next", {heads::ForCausalLM, heads::ForSequenceClassification,
                                                   heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             qwen3_next_impl::build};
  return family;
}

}  // namespace neurarch::families
