// LFM2-MoE (models/lfm2_moe/modular_lfm2_moe.py + configuration_lfm2_moe.py, transformers 5.24.0; LFM2-8B-A1B):
// LFM2's layers (lfm2.cpp: attention or gated short convolution by layer_types) whose feed_forward is LFM2's
// w1/w3/w2 MLP at intermediate_size itself (not shrunk) on the first num_dense_layers layers and a sparse block
// after: router `gate` [num_experts, hidden] without bias, experts of moe_intermediate_size, and, with
// use_expert_bias, a persistent fp32 buffer expert_bias [num_experts] added to the scores before top-k.
// transformers 5 fuses the experts in memory; save_pretrained splits them back per expert (experts.<i>.w1 / w3 /
// w2, the lfm2_moe conversion mapping): those checkpoint names are the ones built here. The reference needs
// layer_types (its default None does not build); without it every layer attends here, as LFM2 reads it.
#include <algorithm>

#include "families/lfm2.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace lfm2_moe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = lfm2::spec(
      c, {.vocab = 65536, .hidden = 2048, .intermediate = 7168, .layers = 32, .heads = 32, .kv_heads = 8,
          .positions = 128000, .activation = "silu", .tie_word_embeddings = true});
  const std::int64_t dense_layers = c.integer({"num_dense_layers"}, 2);
  std::vector<bool> sparse(static_cast<std::size_t>(std::max<std::int64_t>(s.layers, 0)), true);
  for (std::int64_t i = 0; i < dense_layers && i < s.layers; ++i) sparse[static_cast<std::size_t>(i)] = false;

  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 1792),
                             .experts = c.integer({"num_experts"}, 32), .top_k = c.integer({"num_experts_per_tok"}, 4),
                             .activation = s.activation, .gate = "w1", .up = "w3", .down = "w2"};
  const bool expert_bias = c.flag({"use_expert_bias"}, true);
  auto hook = moe::layer_hook(
      sparse, moe::experts_under(base, "feed_forward"),
      [hidden = s.hidden, width = s.intermediate, activation = s.activation](
          graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
        const graph::Scope m = layer / "feed_forward";
        blocks::FeedForwardSpec f{.hidden = hidden, .intermediate = width, .activation = activation, .gated = true,
                                  .module = m, .up = m / "w3", .down = m / "w2", .gate = m / "w1", .bias = false,
                                  .down_bias = false};
        return blocks::feed_forward(gb, x, blocks::BlockNames{i}.ffn(), f);
      });
  s.mlp_override = [hook, expert_bias, experts = base.experts](graph::GraphBuilder& gb, const graph::Value& x,
                                                               std::int64_t i, const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    if (expert_bias && gb.at(out).moe)
      gb.buffer(out, (layer / "feed_forward")("expert_bias"), {experts}, DType::F32);
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace lfm2_moe_impl

const Family& lfm2_moe_family() {
  static const Family family{"lfm2_moe", "models/lfm2_moe/modeling_lfm2_moe.py",
                             classes("Lfm2Moe", {heads::ForCausalLM}), lfm2_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
