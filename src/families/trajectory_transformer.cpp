// Trajectory Transformer (models/deprecated/trajectory_transformer/modeling_trajectory_transformer.py +
// configuration_trajectory_transformer.py, transformers 4.47.1; removed in 5.x): minGPT over discretised
// trajectories. Each of the transition_dim dimensions of a transition has its own vocab_size bins, offset into one
// table of vocab_size x transition_dim + 1 rows (the last is the stop token); positions are a bare learned
// parameter `pos_emb` [1, block_size, n_embd], so a trajectory longer than block_size cannot run. Pre-norm blocks
// (ln1, attn.{query,key,value,proj} with a causal mask, eager only; ln2, l1 -> GELU -> l2, 4 x n_embd), ln_f, and
// an EinLinear head: the sequence padded to whole transitions, each dimension scored by its own [vocab_size + 1,
// n_embd] matrix (head.weight [transition_dim, vocab_size + 1, n_embd], no bias).
#include <fmt/format.h>

#include "blocks/blocks.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace trajectory_transformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 100);
  const std::int64_t block_size = c.dim({"block_size"}, 249);
  const std::int64_t transition = c.dim({"transition_dim"}, 25);
  const std::int64_t layers = c.dim({"n_layer"}, 4);
  const std::int64_t heads = c.dim({"n_head"}, 4);
  const std::int64_t hidden = c.dim({"n_embd"}, 128);
  const double embd_dropout = c.number({"embd_pdrop"}, 0.1);
  const double attn_dropout = c.number({"attn_pdrop"}, 0.1);
  const double resid_dropout = c.number({"resid_pdrop"}, 0.1);

  const std::int64_t seq = in.sequence_length(block_size);
  auto x = b.input({seq}, "tokens", "trajectories");
  x = token_embedding(b, x, "Token_Embedding", Scope("tok_emb"), vocab * transition + 1, hidden);
  auto positions = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x});
  b.parameter(positions, "pos_emb", {1, block_size, hidden}, graph::TensorRole::Other);
  if (seq > block_size)
    b.fail(positions, fmt::format("the trajectory's {} tokens exceed block_size {}: the reference refuses it", seq,
                                  block_size));
  b.at(positions).dropout = embd_dropout;
  x = positions;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("blocks") / i;
    const Scope attn = l / "attn";
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "ln1"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .q = attn / "query",
                   .k = attn / "key", .v = attn / "value", .o = attn / "proj", .dropout = attn_dropout,
                   .output_dropout = resid_dropout});
    b.at(h).attention->sdpa = false;  // the scores are masked and soft-maxed by hand
    x = add(b, h, x, n.add(1));
    h = norm(b, x, n.norm(2, NormKind::LayerNorm), {l / "ln2"});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = 4 * hidden, .activation = "gelu", .module = l,
                      .up = l / "l1", .down = l / "l2", .output_dropout = resid_dropout});
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {Scope("ln_f")});

  // EinLinear: one [vocab + 1, n_embd] matmul per transition dimension, each over one token of every (padded)
  // transition. The logits are grouped by transition, [transitions, transition_dim x (vocab + 1)], so that the
  // stacked weight is read once per transition (the einsum's work), not once per token.
  const std::int64_t transitions = (seq + transition - 1) / transition;
  auto head = b.node(NodeType::LMHead, "LM_Head", {transitions, transition * (vocab + 1)}, {x}, Scope("head"));
  b.parameter(head, "head.weight", {transition, vocab + 1, hidden}, graph::TensorRole::Stacked);
  return head;
}

}  // namespace
}  // namespace trajectory_transformer_impl

const Family& trajectory_transformer_family() {
  static const Family family{"trajectory_transformer",
                             "models/deprecated/trajectory_transformer/modeling_trajectory_transformer.py",
                             classes("TrajectoryTransformer"), trajectory_transformer_impl::build};
  return family;
}

}  // namespace neurarch::families
