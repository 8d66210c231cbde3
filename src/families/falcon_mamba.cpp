// FalconMamba (models/falcon_mamba/modeling_falcon_mamba.py + configuration_falcon_mamba.py,
// transformers 4.47.1): Mamba's tensors and defaults exactly; the mixer additionally
// RMS-normalises dt, B and C without weights (mixer_rms_eps), and its dt_rms / b_c_rms buffers
// are not saved.
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

const Family& falcon_mamba_family() {
  static const Family family{"falcon_mamba",
                             "models/falcon_mamba/modeling_falcon_mamba.py",
                             {{"FalconMambaModel", Head::Base}, {"FalconMambaForCausalLM", Head::CausalLM}},
                             build};
  return family;
}

}  // namespace neurarch::families
