// Hunyuan MoE (models/hunyuan_v1_moe/modular_hunyuan_v1_moe.py + configuration_hunyuan_v1_moe.py, transformers
// 5.24.0; Hunyuan-A13B): Hunyuan dense's attention (hunyuan_v1_dense.cpp) with a mixture in every layer's `mlp`: the
// router is `gate.wg` (no bias; the reference keeps it in fp32), num_experts experts of intermediate_size picked
// moe_topk at a time, and a `shared_mlp` of the same width beside them. transformers 5 fuses the experts in memory
// and save_pretrained splits them back per expert (experts.<i>.gate_proj / up_proj / down_proj, the qwen2_moe
// conversion mapping): those checkpoint names are the ones built here.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/hunyuan_v1_dense.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace hunyuan_v1_moe_impl {
namespace {

// moe_topk is one count or one per layer (Hunyuan-A13B's config.json writes a list), as the reference's gate reads it.
std::vector<std::int64_t> top_k_per_layer(const Config& c, std::int64_t layers) {
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(layers, 0));
  const auto* v = c.raw({"moe_topk"});
  if (!v || !v->is_array()) return std::vector<std::int64_t>(count, c.integer({"moe_topk", "num_experts_per_tok"}, 1));
  const std::string where = fmt::format("{}: key 'moe_topk'", c.origin());
  if (v->size() < count)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("has {} entries for {} layers", v->size(), count));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(*v)[i].is_number_integer())
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected integers, found {}", (*v)[i].dump()));
    out.push_back((*v)[i].get<std::int64_t>());
  }
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = hunyuan_v1_dense::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  // The reference's gate accepts a per-layer expert count too, but its fused experts read one: an integer here.
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_experts", "num_local_experts"}, 1),
                             .activation = s.activation, .shared_intermediate = s.intermediate};
  moe::SpecForLayer experts = moe::experts_under(base, "mlp", "shared_mlp");
  s.mlp_override = moe::layer_hook({}, [experts, top_k = top_k_per_layer(c, s.layers)](std::int64_t i,
                                                                                      const graph::Scope& layer) {
    blocks::MoESpec m = experts(i, layer);
    m.router = m.module / "gate" / "wg";
    m.top_k = top_k[static_cast<std::size_t>(i)];
    return m;
  });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace hunyuan_v1_moe_impl

const Family& hunyuan_v1_moe_family() {
  static const Family family{"hunyuan_v1_moe",
                             "models/hunyuan_v1_moe/modeling_hunyuan_v1_moe.py",
                             {{"HunYuanMoEV1Model", Head::Base},
                              {"HunYuanMoEV1ForCausalLM", Head::CausalLM},
                              {"HunYuanMoEV1ForSequenceClassification", Head::SequenceClassification}},
                             hunyuan_v1_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
