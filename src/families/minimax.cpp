// MiniMax (models/minimax/modeling_minimax.py + configuration_minimax.py, transformers 5.24.0; the shared ground
// truth is 4.57.6's, the same tensors): Mixtral's decoder whose layers take one token mixer each by layer_types
// (absent: softmax attention on even layers, lightning attention on odd ones). The lightning layer keeps
// `self_attn` as its module: qkv_proj, output_gate, an RMSNorm `norm` over all heads and out_proj, all without
// bias, plus its decays as persistent buffers of block_size (slope_rate, query_decay, key_decay, diagonal_decay).
// head_dim is the head_dim key, else hidden_size / num_attention_heads. The residual scales (alpha/beta factors)
// are plain numbers. Sequence-classification, token-classification and QA heads are the generic ones.
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/recurrent.hpp"
#include "families/mixtral.hpp"

namespace neurarch::families {
namespace minimax_impl {
namespace {

/// Per layer: true for a lightning-attention layer (layer_types "linear_attention").
std::vector<bool> lightning_layers(const Config& c, std::int64_t layers) {
  std::vector<bool> out(static_cast<std::size_t>(layers), false);
  if (const auto* types = c.raw({"layer_types"}); types && types->is_array()) {
    for (std::size_t i = 0; i < out.size() && i < types->size(); ++i)
      out[i] = (*types)[i].is_string() && (*types)[i].get<std::string>() == "linear_attention";
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (i + 1) % 2 == 0;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = mixtral::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const blocks::LightningSpec mixer{.hidden = s.hidden, .heads = s.heads, .head_dim = s.head_dim,
                                    .block = c.dim({"block_size"}, 256)};
  s.attention_override = [lightning = lightning_layers(c, s.layers), mixer](
                             graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    const auto at = static_cast<std::size_t>(i);
    if (at >= lightning.size() || !lightning[at]) return graph::Value{};  // softmax attention
    blocks::LightningSpec m = mixer;
    m.module = layer / "self_attn";
    return blocks::lightning_attention(gb, x, fmt::format("Lightning_Attention_{}", i), m);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace minimax_impl

const Family& minimax_family() {
  static const Family family{"minimax", "models/minimax/modeling_minimax.py",
                             classes("MiniMax", {heads::ForCausalLM, heads::ForSequenceClassification,
                                                 heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             minimax_impl::build};
  return family;
}

}  // namespace neurarch::families
