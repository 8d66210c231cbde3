// Hunyuan dense (models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py + configuration_hunyuan_v1_dense.py,
// transformers 5.24.0; Hunyuan-7B / -4B / -1.8B / -0.5B): Qwen3's layout (RMSNorm over each head of q and k after
// the projections, attention_bias on q/k/v/o) with the norms named query_layernorm / key_layernorm, and
// HunYuanDenseV1Config's defaults (a 290943-token vocabulary, 2048 positions, KV heads = heads unless set).
#include "families/hunyuan_v1_dense.hpp"

namespace neurarch::families {

decoder::DecoderSpec hunyuan_v1_dense::spec(const Config& c) {
  decoder::DecoderSpec s = qwen3_spec(
      c, {.vocab = 290943, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32, .positions = 2048,
          .activation = "silu", .tie_word_embeddings = false});
  s.names.q_norm = "query_layernorm";
  s.names.k_norm = "key_layernorm";
  s.windows.clear();  // the config has no sliding window
  return s;
}

namespace hunyuan_v1_dense_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, hunyuan_v1_dense::spec(in.config));
}

}  // namespace
}  // namespace hunyuan_v1_dense_impl

const Family& hunyuan_v1_dense_family() {
  static const Family family{"hunyuan_v1_dense",
                             "models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py",
                             {{"HunYuanDenseV1Model", Head::Base},
                              {"HunYuanDenseV1ForCausalLM", Head::CausalLM},
                              {"HunYuanDenseV1ForSequenceClassification", Head::SequenceClassification}},
                             hunyuan_v1_dense_impl::build};
  return family;
}

}  // namespace neurarch::families
