// CPM-Ant (models/cpmant/modeling_cpmant.py + configuration_cpmant.py, transformers 4.47.1): OpenBMB's 10B
// bilingual model. Every input gets prompt_length learned prompt tokens in front (rows vocab_size + 2 x prompt_length
// onward of `input_embedding`, which has vocab_size + prompt_types x prompt_length rows), plus a segment embedding;
// there is no position table: every attention adds one bias shared by all layers, looked up per head from
// `position_bias.relative_attention_bias` [segment_types^2 + position_bias_num_buckets, heads] (segment pairs, then
// bucketed relative distances). Pre-norm layers with weight-only RMS norms (`layernorm_before_attention`,
// `layernorm_before_ffn`, `encoder.output_layernorm`), attention without biases of explicit dim_head, eager only and
// not causal (forward's context mask is all ones: every token sees every other), and a GELU-gated FFN
// (`w_in.w_0` gate, `w_in.w_1`, `w_out`). The prompt positions are dropped before the output; CpmAntForCausalLM's
// lm_head scores every input_embedding row and is tied to it. Dropout only when dropout_p is set.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace cpmant_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 30720);
  const std::int64_t hidden = c.dim({"hidden_size"}, 4096);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 32);
  const std::int64_t head_dim = c.dim({"dim_head"}, 128);
  const std::int64_t ffn = c.dim({"dim_ff"}, 10240);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 48);
  const double dropout = c.has("dropout_p") ? c.number({"dropout_p"}) : 0.0;
  const std::int64_t buckets = c.dim({"position_bias_num_buckets"}, 512);
  const std::int64_t max_distance = c.dim({"position_bias_max_distance"}, 2048);
  const std::int64_t prompt_types = c.dim({"prompt_types"}, 32);
  const std::int64_t prompt_length = c.dim({"prompt_length"}, 32);
  const std::int64_t segments = c.dim({"segment_types"}, 32);
  const std::int64_t rows = vocab + prompt_types * prompt_length;

  const Scope root = in.head == Head::Base ? Scope() : Scope("cpmant");
  // Distances past max_distance share the last bucket: the length is not bounded, max_distance is the default.
  const std::int64_t seq = in.sequence_length(max_distance);
  const std::int64_t total = prompt_length + seq;
  auto ids = b.input({seq}, "tokens");
  auto x = b.node(NodeType::Embedding, "Token_Embedding", {total, hidden}, {ids}, root / "input_embedding");
  b.parameter(x, (root / "input_embedding")("weight"), {rows, hidden}, graph::TensorRole::Embedding);
  x = added_embedding(b, x, "Segment_Embedding", root / "segment_embedding", segments, hidden);
  // One [heads, total, total] bias, computed once and added to every layer's scores.
  auto bias = b.node(NodeType::RelativePositionBias, "Segment_Position_Bias", {heads, total, total}, {x},
                     root / "position_bias");
  b.parameter(bias, (root / "position_bias")("relative_attention_bias"), {segments * segments + buckets, heads}, graph::TensorRole::Bias);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layers" / i;
    const Scope attn = l / "self_att" / "self_attention";
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::RMSNorm), {l / "self_att" / "layernorm_before_attention", NormKind::RMSNorm});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .head_dim = head_dim, .module = attn, .q = attn / "project_q",
                   .k = attn / "project_k", .v = attn / "project_v", .o = attn / "attention_out", .qkv_bias = false,
                   .o_bias = false, .require_divisible = false, .dropout = dropout, .output_dropout = dropout});
    b.at(h).attention->sdpa = false;  // scores, bias, masks and softmax written out by hand
    add_score_bias(b, h, bias);
    x = add(b, h, x, n.add(1));
    const Scope f = l / "ffn";
    h = norm(b, x, n.norm(2, NormKind::RMSNorm), {f / "layernorm_before_ffn", NormKind::RMSNorm});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = ffn, .activation = "gelu", .gated = true, .module = f / "ffn",
                      .up = f / "ffn" / "w_in" / "w_1", .down = f / "ffn" / "w_out", .gate = f / "ffn" / "w_in" / "w_0",
                      .bias = false, .down_bias = false, .output_dropout = dropout, .inner_dropout = dropout});
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "encoder" / "output_layernorm", NormKind::RMSNorm});
  // hidden_states[:, prompt_length:]: a view, nothing kept for backward (modelled as a parameter-free node).
  x = b.node(NodeType::Add, "Drop_Prompt_Positions", {seq, hidden}, {x});
  if (in.head != Head::CausalLM) return x;
  return lm_head(b, x, "LM_Head",
                 {.module = Scope("lm_head"), .hidden = hidden, .vocab = rows,
                  .tied_weight = (root / "input_embedding")("weight")});
}

}  // namespace
}  // namespace cpmant_impl

const Family& cpmant_family() {
  static const Family family{"cpmant", "models/cpmant/modeling_cpmant.py", classes("CpmAnt", {heads::ForCausalLM}),
                             cpmant_impl::build};
  return family;
}

}  // namespace neurarch::families
