// Graphormer (models/deprecated/graphormer/modeling_graphormer.py + configuration_graphormer.py, transformers
// 4.47.1; removed from 5.x): a graph transformer. `graph_encoder.graph_node_feature` sums, per node, the atom
// features' rows of atom_encoder (num_atoms + 1), in_degree_encoder and out_degree_encoder, and prepends the
// learned graph_token, so a graph of N nodes is N + 1 tokens (--seq is N, max_nodes by default).
// `graph_attn_bias` builds a [heads, N + 1, N + 1] score bias from spatial_pos_encoder (shortest-path distances),
// graph_token_virtual_distance and edge_encoder (edge features along the path, mixed per hop by edge_dis_encoder
// when edge_type is "multi_hop"); every layer adds it to its eager scores (bmm + softmax, no SDPA path). Layers are
// post-norm by default (pre_layernorm switches, and then owns an unused final_layer_norm), with biased q/k/v/out_proj
// and fc1/fc2. GraphormerModel ends in lm_head_transform_weight -> activation -> layer_norm;
// GraphormerForGraphClassification wraps it as `encoder` and adds a bias-free classifier (num_classes outputs)
// plus a learned scalar bias, read at the graph token.
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace graphormer_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"embedding_dim", "hidden_size"}, 768);
  const std::int64_t ffn = c.dim({"ffn_embedding_dim"}, 768);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 32);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::string activation = c.text({"activation_fn"}, "gelu");
  const double dropout = c.number({"dropout"}, 0.1);
  const double attention_dropout = c.number({"attention_dropout"}, 0.1);
  const double activation_dropout = c.number({"activation_dropout"}, 0.1);
  const bool bias = c.flag({"bias"}, true);
  const bool pre_norm = c.flag({"pre_layernorm"}, false);
  const bool classification = in.head != Head::Base;
  const Scope model = classification ? Scope("encoder") : Scope();
  const Scope encoder = model / "graph_encoder";

  const std::int64_t nodes = in.sequence_length(c.dim({"max_nodes"}, 512));
  auto ids = b.input({nodes}, "tokens", "input_nodes");
  const Scope feature = encoder / "graph_node_feature";
  auto x = b.node(graph::NodeType::Embedding, "Graph_Node_Feature", {nodes + 1, hidden}, {ids}, feature);
  b.parameter(x, (feature / "atom_encoder")("weight"), {c.dim({"num_atoms"}, 512 * 9) + 1, hidden}, graph::TensorRole::Embedding);
  b.parameter(x, (feature / "in_degree_encoder")("weight"), {c.dim({"num_in_degree"}, 512), hidden}, graph::TensorRole::Embedding);
  b.parameter(x, (feature / "out_degree_encoder")("weight"), {c.dim({"num_out_degree"}, 512), hidden}, graph::TensorRole::Embedding);
  b.parameter(x, (feature / "graph_token")("weight"), {1, hidden}, graph::TensorRole::Embedding);

  // The score bias every layer adds: lookups per (query, key) pair, as T5's relative bias.
  const Scope bias_module = encoder / "graph_attn_bias";
  auto graph_bias = b.node(graph::NodeType::RelativePositionBias, "Graph_Attention_Bias", {heads, nodes + 1, nodes + 1},
                           {ids}, bias_module);
  b.parameter(graph_bias, (bias_module / "edge_encoder")("weight"), {c.dim({"num_edges"}, 512 * 3) + 1, heads}, graph::TensorRole::Embedding);
  if (c.text({"edge_type"}, "multi_hop") == "multi_hop")
    b.parameter(graph_bias, (bias_module / "edge_dis_encoder")("weight"),
                {c.dim({"num_edge_dis"}, 128) * heads * heads, 1}, graph::TensorRole::Embedding);
  b.parameter(graph_bias, (bias_module / "spatial_pos_encoder")("weight"), {c.dim({"num_spatial"}, 512), heads}, graph::TensorRole::Embedding);
  b.parameter(graph_bias, (bias_module / "graph_token_virtual_distance")("weight"), {1, heads}, graph::TensorRole::Embedding);

  // q_noise > 0 adds a bias-free Linear the embeddings pass through.
  if (c.number({"q_noise"}, 0.0) > 0)
    x = dense(b, x, "Quant_Noise", encoder / "quant_noise", hidden, hidden, false);
  if (c.flag({"encoder_normalize_before"}, false)) x = norm(b, x, "Embedding_LayerNorm", {encoder / "emb_layer_norm"});
  b.at(x).dropout = dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    const Scope attn = l / "self_attn";
    const BlockNames n{i};
    auto h = pre_norm ? norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"}) : x;
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                   .v = attn / "v_proj", .o = attn / "out_proj", .qkv_bias = bias, .o_bias = bias,
                   .dropout = attention_dropout, .output_dropout = dropout});
    b.at(h).attention->sdpa = false;
    add_score_bias(b, h, graph_bias);
    x = add(b, h, x, n.add(1));
    if (!pre_norm) x = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    h = pre_norm ? norm(b, x, n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"}) : x;
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = ffn, .activation = activation, .module = l, .up = l / "fc1",
                      .down = l / "fc2", .output_dropout = dropout, .inner_dropout = activation_dropout});
    x = add(b, h, x, n.add(2));
    if (!pre_norm) x = norm(b, x, n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
  }
  b.set_block(-1);
  // GraphormerGraphEncoder builds final_layer_norm with pre_layernorm but its forward never applies it.
  if (pre_norm) {
    b.parameter(x, (encoder / "final_layer_norm")("weight"), {hidden}, graph::TensorRole::Norm);
    b.parameter(x, (encoder / "final_layer_norm")("bias"), {hidden}, graph::TensorRole::Bias);
  }
  x = dense(b, x, "LM_Head_Transform", model / "lm_head_transform_weight", hidden, hidden, true, activation);
  x = norm(b, x, "LM_Head_LayerNorm", {model / "layer_norm"});
  if (!classification) return x;
  const Scope head("classifier");
  auto logits = classifier(b, Value{x.node, {hidden}}, "Classifier", head / "classifier", hidden,
                           c.dim({"num_classes"}, 1), false);
  b.parameter(logits, head("lm_output_learned_bias"), {1}, graph::TensorRole::Bias);
  return logits;
}

}  // namespace
}  // namespace graphormer_impl

const Family& graphormer_family() {
  static const Family family{"graphormer", "models/deprecated/graphormer/modeling_graphormer.py",
                             {{"GraphormerModel", Head::Base},
                              {"GraphormerForGraphClassification", Head::SequenceClassification}},
                             graphormer_impl::build};
  return family;
}

}  // namespace neurarch::families
