// CodeGen (models/codegen/modeling_codegen.py + configuration_codegen.py, transformers 4.47.1):
// GPT-J's parallel block with q/k/v fused in one bias-free qkv_proj [3 * hidden]; fc_in/fc_out
// MLP with bias; LM head with a bias, untied by default. GPT-2's aliases; n_inner null ->
// 4 * n_embd. The attention refuses hidden % heads != 0.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace codegen_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = decoder::gptj_spec(in.config);
  s.names.qkv = "qkv_proj";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace codegen_impl

const Family& codegen_family() {
  static const Family family{"codegen", "models/codegen/modeling_codegen.py",
                             classes("CodeGen", {heads::ForCausalLM}), codegen_impl::build};
  return family;
}

}  // namespace neurarch::families
