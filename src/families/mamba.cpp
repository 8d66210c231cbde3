// Mamba (models/mamba/modeling_mamba.py + configuration_mamba.py, transformers 4.47.1): a stack
// of selective-scan mixers, no attention. Each mixer: in_proj [2 x inner, hidden] (bias with
// use_bias), a depthwise conv1d [inner, 1, conv_kernel] (bias with use_conv_bias), x_proj
// [time_step_rank + 2 x state, inner], dt_proj [inner, time_step_rank] with bias, A_log
// [inner, state], D [inner], out_proj [hidden, inner]. inner is expand x hidden unless the file
// writes intermediate_size (the config sets any extra key after computing it); time_step_rank
// "auto" is ceil(hidden / 16). The LM head is tied to the embeddings by default.
#include "families/mamba_common.hpp"

namespace neurarch::families {
namespace mamba_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return mamba::build(in, b, mamba::v1_stack(in.config)); }

}  // namespace
}  // namespace mamba_impl

const Family& mamba_family() {
  static const Family family{"mamba", "models/mamba/modeling_mamba.py", classes("Mamba", {heads::ForCausalLM}), mamba_impl::build};
  return family;
}

}  // namespace neurarch::families
