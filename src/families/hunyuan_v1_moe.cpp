// Hunyuan MoE (models/hunyuan_v1_moe/modular_hunyuan_v1_moe.py + configuration_hunyuan_v1_moe.py, transformers
// 5.24.0; Hunyuan-A13B): Hunyuan dense's attention (hunyuan_v1_dense.cpp) with a mixture in every layer's `mlp`: the
// router is `gate.wg` (no bias; the reference keeps it in fp32), num_experts experts of intermediate_size picked
// moe_topk at a time, and a `shared_mlp` of the same width beside them. transformers 5 fuses the experts in memory
// and save_pretrained splits them back per expert (experts.<i>.gate_proj / up_proj / down_proj, the qwen2_moe
// conversion mapping): those checkpoint names are the ones built here.
#include "families/hunyuan_v1_dense.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = hunyuan_v1_dense::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  // The reference's gate accepts a per-layer list, but its fused experts read one count: an integer here.
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_experts", "num_local_experts"}, 1),
                             .top_k = c.integer({"moe_topk", "num_experts_per_tok"}, 1),
                             .activation = s.activation, .shared_intermediate = s.intermediate};
  moe::SpecForLayer experts = moe::experts_under(base, "mlp", "shared_mlp");
  s.mlp_override = moe::layer_hook({}, [experts](std::int64_t i, const graph::Scope& layer) {
    blocks::MoESpec m = experts(i, layer);
    m.router = m.module / "gate" / "wg";
    return m;
  });
  return decoder::build_decoder(in, b, s);
}

}  // namespace

const Family& hunyuan_v1_moe_family() {
  static const Family family{"hunyuan_v1_moe",
                             "models/hunyuan_v1_moe/modeling_hunyuan_v1_moe.py",
                             {{"HunYuanMoEV1Model", Head::Base},
                              {"HunYuanMoEV1ForCausalLM", Head::CausalLM},
                              {"HunYuanMoEV1ForSequenceClassification", Head::SequenceClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
