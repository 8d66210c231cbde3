// GPT-NeoX-Japanese (models/gpt_neox_japanese/modeling_gpt_neox_japanese.py + configuration_gpt_neox_japanese.py,
// transformers 4.47.1): GPT-NeoX's layer names (gpt_neox.cpp) with its own config class's defaults (2560 wide,
// 32 layers and heads, 32000 tokens, intermediate = hidden x intermediate_multiple_size) and these differences:
// query_key_value, dense and both MLP projections have no bias; only the last layer's attention carries a bias,
// the bare `attention.dense_bias` parameter added to its output; the residual is sequential; `embed_out` is tied to
// `embed_in` by default. attention_dropout (0.1) on the probabilities, hidden_dropout before each residual add.
#include <fmt/format.h>

#include "families/gpt_neox.hpp"

namespace neurarch::families {
namespace gpt_neox_japanese_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  // GPTNeoXJapaneseConfig's defaults; the intermediate size it derives from the width is set below.
  decoder::DecoderSpec s = gpt_neox::spec(
      c, {.vocab = 32000, .hidden = 2560, .layers = 32, .heads = 32, .intermediate = 4 * 2560, .positions = 2048,
          .tie_word_embeddings = true});
  // GPTNeoXJapaneseConfig has neither key: its layers are always sequential and bias-free.
  s.parallel = false;
  s.qkv_bias = false;
  s.o_bias = false;
  s.mlp_bias = false;
  s.down_bias = false;
  s.intermediate = s.hidden * c.dim({"intermediate_multiple_size"}, 4);
  s.attention_dropout = c.number({"attention_dropout"}, 0.1);
  s.residual_dropout = c.number({"hidden_dropout"}, 0.0);
  s.prefix = "gpt_neox_japanese";
  s.qa_prefix = "gpt_neox_japanese";
  auto out = decoder::build_decoder(in, b, s);

  // The last layer's attention adds dense_bias to its output.
  const blocks::Scope root = in.head == Head::Base ? blocks::Scope() : blocks::Scope(s.prefix);
  const std::string last = fmt::format("layers.{}.attention", s.layers - 1);
  for (const auto& n : b.graph().nodes)
    if (n.attention && n.path.size() >= last.size() &&
        n.path.compare(n.path.size() - last.size(), last.size(), last) == 0) {
      b.parameter(graph::Value{n.index, n.out}, (root / "layers" / (s.layers - 1) / "attention")("dense_bias"),
                  {s.hidden}, graph::TensorRole::Bias);
      break;
    }
  return out;
}

}  // namespace
}  // namespace gpt_neox_japanese_impl

const Family& gpt_neox_japanese_family() {
  static const Family family{"gpt_neox_japanese", "models/gpt_neox_japanese/modeling_gpt_neox_japanese.py",
                             classes("GPTNeoXJapanese", {heads::ForCausalLM}), gpt_neox_japanese_impl::build};
  return family;
}

}  // namespace neurarch::families
