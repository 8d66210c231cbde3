// Qwen3.5-MoE's text model on its own (model_type qwen3_5_moe_text; models/qwen3_5_moe/modeling_qwen3_5_moe.py +
// configuration_qwen3_5_moe.py, transformers 5.24.0): Qwen3.5's hybrid stack with Qwen2-MoE's sparse block on
// every layer (no decoder_sparse_step or mlp_only_layers): router `gate`, experts.<i>, a shared_expert and its
// sigmoid shared_expert_gate. transformers 5 fuses the experts in memory (experts.gate_up_proj / down_proj) and
// save_pretrained splits them back per expert (the qwen2_moe conversion mapping): the per-expert names are the
// checkpoint's, as for Qwen3-Next.
#include "families/qwen3_5.hpp"

namespace neurarch::families {

namespace qwen3_5 {

decoder::DecoderSpec moe_text_spec(const Config& text) {
  decoder::DecoderSpec s =
      qwen3_next::spec(text,
                       {.vocab = 248320, .hidden = 2048, .intermediate = 5632, .layers = 40, .heads = 16, .kv_heads = 2,
                        .head_dim = 256, .positions = 32768, .activation = "silu", .tie_word_embeddings = false},
                       true);
  const blocks::MoESpec block = qwen3_next::sparse_block(
      text, s, {.intermediate = 512, .experts = 256, .top_k = 8, .shared_intermediate = 512});
  s.mlp_override = qwen3_next::mlp({}, block, s);  // every layer sparse
  return s;
}

}  // namespace qwen3_5

namespace qwen3_5_moe_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, qwen3_5::moe_text_spec(in.config));
}

}  // namespace
}  // namespace qwen3_5_moe_text_impl

const Family& qwen3_5_moe_text_family() {
  static const Family family{"qwen3_5_moe_text", "models/qwen3_5_moe/modeling_qwen3_5_moe.py",
                             {{"Qwen3_5MoeTextModel", Head::Base}, {"Qwen3_5MoeForCausalLM", Head::CausalLM}},
                             qwen3_5_moe_text_impl::build};
  return family;
}

}  // namespace neurarch::families
