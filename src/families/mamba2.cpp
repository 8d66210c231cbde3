// Mamba-2 (models/mamba2/modeling_mamba2.py + configuration_mamba2.py, transformers 4.47.1): the
// Mamba stack with state-space-duality mixers. inner is always expand x hidden (the mixer computes
// it; no intermediate_size key); in_proj [inner + conv_dim + num_heads, hidden] yields z, x, B, C
// and dt at once, conv_dim = inner + 2 x n_groups x state; the conv1d runs over conv_dim
// channels; dt_bias, A_log and D are per head; a gated RMSNorm `norm` [inner] precedes out_proj.
// num_heads x head_dim must equal inner for the forward pass. The head is untied by default.
#include "families/mamba_common.hpp"

namespace neurarch::families {
namespace mamba2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  mamba::Stack s;
  s.vocab = c.dim({"vocab_size"}, 32768);
  s.hidden = c.dim({"hidden_size"}, 4096);
  s.layers = c.dim({"num_hidden_layers"}, 64);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, false);
  const auto expand = c.number({"expand"}, 2);
  s.mixer = {.version = 2,
             .hidden = s.hidden,
             .inner = static_cast<std::int64_t>(expand * static_cast<double>(s.hidden)),
             .state = c.dim({"state_size"}, 128),
             .conv_kernel = c.dim({"conv_kernel"}, 4),
             .heads = c.dim({"num_heads"}, 128),
             .head_dim = c.dim({"head_dim"}, 64),
             .groups = c.dim({"n_groups"}, 8),
             .bias = c.flag({"use_bias"}, false),
             .conv_bias = c.flag({"use_conv_bias"}, true)};
  return mamba::build(in, b, s);
}

}  // namespace
}  // namespace mamba2_impl

const Family& mamba2_family() {
  static const Family family{"mamba2", "models/mamba2/modeling_mamba2.py",
                             classes("Mamba2", {heads::ForCausalLM}), mamba2_impl::build};
  return family;
}

}  // namespace neurarch::families
