// Seed-OSS (models/seed_oss/modeling_seed_oss.py + configuration_seed_oss.py, transformers
// 4.57.6): Llama's layer with separate bias switches for q/k/v (attention_bias, default on) and
// o_proj (attention_out_bias); 80 query heads of 128 over a 4096 hidden size.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace seed_oss_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 155136, .hidden = 4096, .intermediate = 27648, .layers = 64, .heads = 80, .kv_heads = 8,
          .head_dim = 128, .positions = 524288, .activation = "silu", .tie_word_embeddings = false});
  s.qkv_bias = c.flag({"attention_bias"}, true);
  s.o_bias = c.flag({"attention_out_bias"}, false);
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace seed_oss_impl

const Family& seed_oss_family() {
  static const Family family{"seed_oss", "models/seed_oss/modeling_seed_oss.py",
                             classes("SeedOss",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             seed_oss_impl::build};
  return family;
}

}  // namespace neurarch::families
