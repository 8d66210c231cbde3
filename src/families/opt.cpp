// OPT (models/opt/modeling_opt.py + configuration_opt.py, transformers 4.47.1). Tokens embed in
// word_embed_proj_dim (default hidden_size); when that differs, project_in / project_out (no bias)
// bridge to hidden_size and the heads read the narrow width. Learned positions keep
// max_position_embeddings + 2 rows (ids start at 2). do_layer_norm_before picks pre-norm (with a
// final_layer_norm unless _remove_final_layer_norm) or post-norm (no final norm, OPT-350m).
// enable_bias switches every linear's bias; layer_norm_elementwise_affine=false leaves the norms
// without tensors. The attention refuses hidden % heads != 0.
#include <fmt/format.h>

#include "families/decoder_heads.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace opt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// Positions are numbered from 2: the first two rows of the table are never read.
constexpr std::int64_t kPositionOffset = 2;

struct OptDims {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t ffn = 0;
  std::string activation;
  bool bias = true;
  bool affine = true;
  double dropout = 0.0;
  double attention_dropout = 0.0;
};

Value opt_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, bool affine) {
  if (affine) return norm(b, x, name, {module});
  return b.node(NodeType::LayerNorm, name, x.shape, {x}, module);
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const OptDims& d, bool pre_norm) {
  const BlockNames n{i};
  const Scope attn = l / "self_attn";
  Value h = x;
  if (pre_norm) h = opt_norm(b, h, n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm", d.affine);
  // The clamp of the masked scores is the eager path of transformers 4.x (the published OPT rows ran ~4.45); the
  // pinned 5.x runs the shared eager path without it (docs/cpu-memory.md: +11 % forward at 1,024 tokens).
  h = attention(b, h, n.attention(),
                {.hidden = d.hidden, .heads = d.heads, .causal = true, .module = attn, .q = attn / "q_proj",
                 .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj", .qkv_bias = d.bias,
                 .o_bias = d.bias, .dropout = d.attention_dropout, .output_dropout = d.dropout,
                  .clamped_scores = true, .softmax_fp32 = true});
  h = add(b, h, x, n.add(1));
  if (!pre_norm) h = opt_norm(b, h, n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm", d.affine);
  const Value residual = h;
  if (pre_norm) h = opt_norm(b, h, n.norm(2, NormKind::LayerNorm), l / "final_layer_norm", d.affine);
  h = feed_forward(b, h, n.ffn(),
                   {.hidden = d.hidden, .intermediate = d.ffn, .activation = d.activation, .module = l,
                    .up = l / "fc1", .down = l / "fc2", .bias = d.bias, .down_bias = d.bias,
                    .output_dropout = d.dropout});
  h = add(b, h, residual, n.add(2));
  if (!pre_norm) h = opt_norm(b, h, n.norm(2, NormKind::LayerNorm), l / "final_layer_norm", d.affine);
  return h;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  OptDims d{.hidden = c.dim({"hidden_size"}, 768),
            .heads = c.dim({"num_attention_heads"}, 12),
            .ffn = c.dim({"ffn_dim"}, 3072),
            .activation = c.text({"activation_function"}, "relu"),
            .bias = c.flag({"enable_bias"}, true),
            .affine = c.flag({"layer_norm_elementwise_affine"}, true),
            .dropout = c.number({"dropout"}, 0.1),
            .attention_dropout = c.number({"attention_dropout"}, 0.0)};
  const std::int64_t vocab = c.dim({"vocab_size"}, 50272);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 2048);
  const std::int64_t embed_dim = c.dim({"word_embed_proj_dim"}, d.hidden);
  const bool pre_norm = c.flag({"do_layer_norm_before"}, true);
  const bool final_norm = pre_norm && !c.flag({"_remove_final_layer_norm"}, false);
  const bool tie = c.flag({"tie_word_embeddings"}, true);

  const Scope root = (in.head == Head::Base ? Scope() : Scope("model")) / "decoder";
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embed_tokens", vocab, embed_dim);
  if (embed_dim != d.hidden)
    x = dense(b, x, "Project_In", root / "project_in", embed_dim, d.hidden, false);
  x = learned_positions(b, x, "Position_Embedding", root / "embed_positions", positions + kPositionOffset, d.hidden,
                        kPositionOffset);
  if (d.hidden % d.heads != 0)
    b.fail(x, fmt::format("hidden size {} not divisible by {} heads", d.hidden, d.heads));

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = layer(b, x, i, root / "layers" / i, d, pre_norm);
  }
  b.set_block(-1);
  if (final_norm) x = opt_norm(b, x, "Final_LayerNorm", root / "final_layer_norm", d.affine);
  if (embed_dim != d.hidden) x = dense(b, x, "Project_Out", root / "project_out", d.hidden, embed_dim, false);

  const std::string tied = tie ? (root / "embed_tokens")("weight") : "";
  return decoder_heads(b, x, in, {.hidden = embed_dim, .vocab = vocab, .tied_embedding = tied});
}

}  // namespace
}  // namespace opt_impl

const Family& opt_family() {
  static const Family family{"opt", "models/opt/modeling_opt.py",
                             classes("OPT",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForQuestionAnswering}),
                             opt_impl::build};
  return family;
}

}  // namespace neurarch::families
