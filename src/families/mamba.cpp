// Mamba (models/mamba/modeling_mamba.py + configuration_mamba.py, transformers 4.47.1): a stack
// of selective-scan mixers, no attention. Each mixer: in_proj [2 x inner, hidden] (bias with
// use_bias), a depthwise conv1d [inner, 1, conv_kernel] (bias with use_conv_bias), x_proj
// [time_step_rank + 2 x state, inner], dt_proj [inner, time_step_rank] with bias, A_log
// [inner, state], D [inner], out_proj [hidden, inner]. inner is expand x hidden unless the file
// writes intermediate_size (the config sets any extra key after computing it); time_step_rank
// "auto" is ceil(hidden / 16). The LM head is tied to the embeddings by default.
#include "families/mamba_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  mamba::Stack s;
  s.vocab = c.dim({"vocab_size"}, 50280);
  s.hidden = c.dim({"hidden_size"}, 768);
  s.layers = c.dim({"num_hidden_layers"}, 32);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  const auto expand = c.number({"expand"}, 2);
  s.mixer = {.version = 1,
             .hidden = s.hidden,
             .inner = c.dim({"intermediate_size"}, static_cast<std::int64_t>(expand * static_cast<double>(s.hidden))),
             .state = c.dim({"state_size"}, 16),
             .conv_kernel = c.dim({"conv_kernel"}, 4),
             .time_step_rank = mamba::time_step_rank(c, s.hidden),
             .bias = c.flag({"use_bias"}, false),
             .conv_bias = c.flag({"use_conv_bias"}, true)};
  return mamba::build(in, b, s);
}

}  // namespace

const Family& mamba_family() {
  static const Family family{"mamba",
                             "models/mamba/modeling_mamba.py",
                             {{"MambaModel", Head::Base}, {"MambaForCausalLM", Head::CausalLM}},
                             build};
  return family;
}

}  // namespace neurarch::families
