// Apertus (models/apertus/modeling_apertus.py + configuration_apertus.py, transformers 4.57.6): Llama's
// attention with an RMSNorm over each head of q and k, norms renamed attention_layernorm /
// feedforward_layernorm, and an ungated MLP (down(act(up(x)))). The default activation is xIELU, a module
// with learnable alpha_p / alpha_n ([1] each) and constant beta / eps kept as 0-d buffers that
// save_pretrained writes; the activation builds them in bfloat16 (its own default dtype), whatever the
// model's dtype. Any other hidden_act is a plain function with no tensors.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace apertus_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 131072, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 0,
          .positions = 65536, .activation = "xielu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.gated = false;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.names.pre_attn_norm = "attention_layernorm";
  s.names.pre_ffn_norm = "feedforward_layernorm";
  s.mlp_override = [s](GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& layer) {
    const Scope m = layer / "mlp";
    auto h = feed_forward(gb, x, BlockNames{i}.ffn(),
                          {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation,
                           .module = m, .up = m / "up_proj", .down = m / "down_proj", .bias = false,
                           .down_bias = false});
    if (s.activation == "xielu") {
      const Scope act = m / "act_fn";
      gb.parameter(h, act("alpha_p"), {1}, graph::TensorRole::Other);
      gb.parameter(h, act("alpha_n"), {1}, graph::TensorRole::Other);
      gb.buffer(h, act("beta"), {}, DType::BF16);
      gb.buffer(h, act("eps"), {}, DType::BF16);
    }
    return h;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace apertus_impl

const Family& apertus_family() {
  static const Family family{"apertus", "models/apertus/modeling_apertus.py",
                             classes("Apertus", {heads::ForCausalLM, heads::ForTokenClassification}), apertus_impl::build};
  return family;
}

}  // namespace neurarch::families
