// TimesFM (models/timesfm/modeling_timesfm.py + configuration_timesfm.py, transformers 4.57.6; 5.24 checked): a
// decoder-only forecaster over patches of a time series. past_values (context_length points, --seq) is cut into
// patch_length patches, each joined to its padding mask (2 x patch_length wide) and embedded by
// `input_ff_layer`, a residual block (input_layer -> SiLU -> output_layer, plus residual_layer of the input);
// `freq_emb` adds one of freq_size frequency rows, and `position_emb` (use_positional_embedding, default off) a
// sinusoid from its persistent `inv_timescales` buffer. Each of num_hidden_layers layers: RMSNorm
// (input_layernorm), causal attention of num_attention_heads x head_dim with biased q/k/v/o_proj whose query is
// scaled per channel by softplus(`scaling`) ([head_dim]), the residual add, then the MLP (LayerNorm `layer_norm`,
// gate_proj -> ReLU -> down_proj, its own residual add). Only the base model is built: TimesFmModelForPrediction's
// horizon_ff_layer is a forecasting head, which no head kind of the graph describes yet.
#include <fmt/format.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace timesfm_impl {
namespace {

using namespace blocks;

// TimesFmResidualBlock: output_layer(silu(input_layer(x))) + residual_layer(x).
Value residual_block(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                     std::int64_t hidden, std::int64_t out) {
  const std::int64_t in = x.shape.back();
  auto h = dense(b, x, name + "_Input", module / "input_layer", in, hidden, true, "silu");
  h = dense(b, h, name + "_Output", module / "output_layer", hidden, out, true);
  auto r = dense(b, x, name + "_Residual", module / "residual_layer", in, out, true);
  return add(b, h, r, name + "_Add");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t patch = c.dim({"patch_length"}, 32);
  const std::int64_t hidden = c.dim({"hidden_size"}, 1280);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 1280);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 50);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t head_dim = c.dim({"head_dim"}, 80);
  const std::int64_t freq_size = c.dim({"freq_size"}, 3);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const bool positions = c.flag({"use_positional_embedding"}, false);
  const Scope root;

  const std::int64_t context = in.sequence_length(c.dim({"context_length"}, 512));
  auto values = b.input({context}, "time_series", "past_values");
  auto x = b.node(graph::NodeType::Add, "Patches_With_Padding", {context / patch, 2 * patch}, {values});
  if (context % patch != 0)
    b.fail(x, fmt::format("{} past values do not cut into whole patches of {} (patch_length)", context, patch));
  x = residual_block(b, x, "Input_FF", root / "input_ff_layer", intermediate, hidden);
  if (positions) {
    x = b.node(graph::NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, root / "position_emb");
    b.buffer(x, (root / "position_emb")("inv_timescales"), {hidden / 2}, DType::F32);
  }
  x = added_embedding(b, x, "Frequency_Embedding", root / "freq_emb", freq_size, hidden);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const Scope attn = l / "self_attn";
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::RMSNorm), {l / "input_layernorm", NormKind::RMSNorm, false});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .head_dim = head_dim, .causal = true, .module = attn,
                   .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj",
                   .require_divisible = false, .dropout = attention_dropout});
    b.parameter(h, attn("scaling"), {head_dim}, graph::TensorRole::Other);
    x = add(b, h, x, n.add(1));
    const Scope mlp = l / "mlp";
    h = norm(b, x, n.norm(2, NormKind::LayerNorm), {mlp / "layer_norm"});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = "relu", .module = mlp,
                      .up = mlp / "gate_proj", .down = mlp / "down_proj"});
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  return x;
}

}  // namespace
}  // namespace timesfm_impl

const Family& timesfm_family() {
  static const Family family{"timesfm", "models/timesfm/modeling_timesfm.py",
                             {{"TimesFmModel", Head::Base}}, timesfm_impl::build};
  return family;
}

}  // namespace neurarch::families
