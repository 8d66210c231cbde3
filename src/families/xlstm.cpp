// xLSTM (models/xlstm/modeling_xlstm.py + configuration_xlstm.py, transformers 5.24.0; the shared ground truth is
// 4.57.6's, the same tensors), as transformers builds it without the external `xlstm` package: backbone.embeddings,
// then num_blocks blocks of an RMSNorm `norm_mlstm`, the mLSTM layer `mlstm_layer` and an RMSNorm `norm_ffn`
// before a SwiGLU `ffn`, then `out_norm` and lm_head. The mLSTM layer's q/k width is int(hidden_size x
// qk_dim_factor) and its v width int(hidden_size x v_dim_factor) (the layer does not round them as the config's
// qk_dim property does); the FFN is hidden_size x ffn_proj_factor rounded up to ffn_round_up_to_multiple_of.
// use_bias adds biases to every projection but the gates (which always have one) and to the block norms (not to
// out_norm). weight_mode "fused" joins q/k/v/o-gate into qkv_opreact, the two gates into ifgate_preact and the FFN's
// up projections into proj_up_gate_z. xLSTMForCausalLM declares no tied weights: lm_head is its own.
#include <cmath>

#include <fmt/format.h>

#include "blocks/recurrent.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace xlstm_impl {
namespace {

using namespace blocks;

std::int64_t round_up(double x, std::int64_t multiple) {
  const auto m = static_cast<double>(multiple);
  return static_cast<std::int64_t>(std::floor((x + m - 1) / m) * m);
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 50304);
  const std::int64_t hidden = c.dim({"hidden_size", "embedding_dim"}, 4096);
  const std::int64_t embedding_dim = c.dim({"embedding_dim"}, hidden);
  const std::int64_t layers = c.dim({"num_blocks", "num_hidden_layers"}, 32);
  const bool bias = c.flag({"use_bias"}, false);
  const bool fused = c.text({"weight_mode"}, "single") == "fused";
  const auto h = static_cast<double>(hidden);
  const MlstmSpec layer_spec{.hidden = hidden,
                             .qk_dim = static_cast<std::int64_t>(h * c.number({"qk_dim_factor"}, 0.5)),
                             .v_dim = static_cast<std::int64_t>(h * c.number({"v_dim_factor"}, 1.0)),
                             .heads = c.dim({"num_heads"}, 8),
                             .chunk = c.dim({"chunk_size"}, 64),
                             .fused = fused,
                             .bias = bias};
  const std::int64_t ffn = round_up(h * c.number({"ffn_proj_factor"}, 2.667), c.dim({"ffn_round_up_to_multiple_of"}, 64));

  const Scope root = in.head == Head::Base ? Scope() : Scope("backbone");
  const std::int64_t seq = in.sequence_length(kDefaultSequenceCap);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings", vocab, embedding_dim);
  if (embedding_dim != hidden)
    b.fail(x, fmt::format("embedding_dim {} differs from hidden_size {}, which every block reads", embedding_dim, hidden));
  auto block_norm = [&](const graph::Value& v, const std::string& name, const Scope& module) {
    auto n = norm(b, v, name, {module, NormKind::RMSNorm});
    if (bias) b.parameter(n, module("bias"), {hidden}, graph::TensorRole::Bias);
    return n;
  };
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope block = root / "blocks" / i;
    const BlockNames names{i};
    auto y = block_norm(x, names.norm(1, NormKind::RMSNorm), block / "norm_mlstm");
    MlstmSpec m = layer_spec;
    m.module = block / "mlstm_layer";
    y = mlstm_layer(b, y, fmt::format("mLSTM_{}", i), m);
    x = add(b, y, x, names.add(1));
    y = block_norm(x, names.norm(2, NormKind::RMSNorm), block / "norm_ffn");
    const Scope f = block / "ffn";
    FeedForwardSpec spec{.hidden = hidden, .intermediate = ffn, .activation = "silu", .gated = true, .module = f,
                         .up = f / "proj_up", .down = f / "proj_down", .gate = f / "proj_up_gate", .bias = bias,
                         .down_bias = bias};
    if (fused) spec.gate_up = f / "proj_up_gate_z";
    y = feed_forward(b, y, names.ffn(), spec);
    x = add(b, y, x, names.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "out_norm", NormKind::RMSNorm});
  if (in.head != Head::CausalLM) return x;
  return lm_head(b, x, "LM_Head", {.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab});
}

}  // namespace
}  // namespace xlstm_impl

const Family& xlstm_family() {
  static const Family family{"xlstm", "models/xlstm/modeling_xlstm.py", classes("xLSTM", {heads::ForCausalLM}), xlstm_impl::build};
  return family;
}

}  // namespace neurarch::families
