// Decision Transformer (models/decision_transformer/modeling_decision_transformer.py + configuration_decision_transformer.py,
// transformers 4.47.1, unchanged in 5.24): GPT2Model under `encoder` run on embedded trajectories. Each timestep's
// return-to-go, state and action go through their own Linear (embed_return, embed_state, embed_action), each plus the
// timestep's row of embed_timestep (max_ep_len rows); the three are interleaved (R_1, s_1, a_1, R_2, ...) into a
// sequence three times as long, normalised by embed_ln and fed as inputs_embeds with position_ids all zero, so GPT-2's
// wte is stored but unread and every token adds wpe's first row. The heads read the action tokens (predict_state,
// predict_return) and the state tokens (predict_action, a Sequential with tanh when action_tanh).
#include <algorithm>

#include <fmt/format.h>

#include "families/gpt2.hpp"

namespace neurarch::families {
namespace decision_transformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// A Linear over every third token of the interleaved sequence: `seq` outputs.
Value every_third(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t seq,
                  std::int64_t hidden, std::int64_t out, const std::string& activation = "") {
  auto y = b.node(NodeType::Linear, name, {seq, out}, {x}, module);
  linear_tensors(b, y, module, hidden, out, true);
  b.at(y).activation = activation;
  return y;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // DecisionTransformerConfig's defaults for the GPT-2 keys.
  const gpt2::Variant variant{.vocab = 1, .positions = 1024, .hidden = 128, .layers = 3, .heads = 1,
                              .activation = "relu"};
  const std::int64_t hidden = c.dim({"hidden_size", "n_embd"}, variant.hidden);
  const std::int64_t positions = c.dim({"n_positions", "max_position_embeddings"}, variant.positions);
  const std::int64_t state_dim = c.dim({"state_dim"}, 17);
  const std::int64_t act_dim = c.dim({"act_dim"}, 4);
  const std::int64_t max_ep_len = c.dim({"max_ep_len"}, 4096);
  const bool action_tanh = c.flag({"action_tanh"}, true);
  // Zero position ids leave the length unbounded; by default the interleaved sequence fills wpe's rows, the
  // length GPT-2's table was sized for.
  const std::int64_t seq = in.sequence_length(std::max<std::int64_t>(positions / 3, 1));

  auto states = b.input({seq, state_dim}, "time_series", "states");
  auto actions = b.input({seq, act_dim}, "time_series", "actions");
  auto returns = b.input({seq, 1}, "time_series", "returns_to_go");
  auto timesteps = b.input({seq}, "tokens", "timesteps");
  auto time = token_embedding(b, timesteps, "Timestep_Embedding", Scope("embed_timestep"), max_ep_len, hidden);
  auto embed = [&](const Value& x, const std::string& what, const char* module, std::int64_t width) {
    auto e = dense(b, x, fmt::format("{}_Embedding", what), Scope(module), width, hidden, true);
    return add(b, e, time, fmt::format("{}_Plus_Timestep", what));
  };
  auto r = embed(returns, "Return", "embed_return", 1);
  auto s = embed(states, "State", "embed_state", state_dim);
  auto a = embed(actions, "Action", "embed_action", act_dim);
  // torch.stack + reshape keeps nothing for backward: a parameter-free join of the three.
  auto stacked = b.node(NodeType::Add, "Interleave_Return_State_Action", {3 * seq, hidden}, {r, s, a});
  stacked = norm(b, stacked, "Embedding_LayerNorm", {Scope("embed_ln")});

  auto x = gpt2::model(in, b, variant, Scope("encoder"), gpt2::Embedded{.states = stacked, .zero_positions = true});

  every_third(b, x, "Predict_State", Scope("predict_state"), seq, hidden, state_dim);
  every_third(b, x, "Predict_Return", Scope("predict_return"), seq, hidden, 1);
  return every_third(b, x, "Predict_Action", Scope("predict_action") / 0, seq, hidden, act_dim,
                     action_tanh ? "tanh" : "");
}

}  // namespace
}  // namespace decision_transformer_impl

const Family& decision_transformer_family() {
  static const Family family{"decision_transformer", "models/decision_transformer/modeling_decision_transformer.py",
                             classes("DecisionTransformer"), decision_transformer_impl::build};
  return family;
}

}  // namespace neurarch::families
