#include "families/groupvit_common.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::groupvit {

using namespace blocks;
using graph::NodeType;

namespace groupvit_common_impl {
namespace {

struct Dims {
  std::int64_t hidden, intermediate, heads;
  std::string activation;
  double attention_dropout = 0.0;
};

Dims read_dims(const Config& c, std::int64_t hidden, std::int64_t intermediate, std::int64_t heads,
               const char* activation) {
  return {c.dim({"hidden_size"}, hidden), c.dim({"intermediate_size"}, intermediate),
          c.dim({"num_attention_heads"}, heads), c.text({"hidden_act"}, activation),
          c.number({"attention_dropout"}, 0.0)};
}

AttentionSpec attention_spec(const Scope& module, const Dims& d, bool causal = false) {
  return AttentionSpec{.hidden = d.hidden, .heads = d.heads, .causal = causal, .module = module,
                       .q = module / "q_proj", .k = module / "k_proj", .v = module / "v_proj",
                       .o = module / "out_proj", .dropout = d.attention_dropout};
}

FeedForwardSpec mlp_spec(const Scope& mlp, const Dims& d, std::int64_t intermediate) {
  return FeedForwardSpec{.hidden = d.hidden, .intermediate = intermediate, .activation = d.activation,
                         .module = mlp, .up = mlp / "fc1", .down = mlp / "fc2"};
}

// GroupViTEncoderLayer (CLIP's pre-norm layer), eager attention only.
Value encoder_layer(GraphBuilder& b, const Value& x, std::int64_t index, const Scope& l, const Dims& d, bool causal) {
  const std::size_t first = b.graph().nodes.size();
  PreNormLayer layer;
  layer.norm1 = {l / "layer_norm1"};
  layer.attention = attention_spec(l / "self_attn", d, causal);
  layer.norm2 = {l / "layer_norm2"};
  layer.ffn = mlp_spec(l / "mlp", d, d.intermediate);
  auto out = pre_norm_layer(b, x, index, layer);
  for (std::size_t i = first; i < b.graph().nodes.size(); ++i)
    if (b.graph().nodes[i].attention) b.at(Value{static_cast<int>(i), {}}).attention->sdpa = false;
  return out;
}

// GroupViTMixerMLP: GroupViTMLP over the token axis of [tokens, hidden] (transposed in and out): tokens -> width ->
// out tokens.
Value mixer_mlp(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Dims& d,
                std::int64_t width, std::int64_t out_tokens) {
  const std::int64_t tokens = x.shape.front();
  auto h =
      dense(b, Value{x.node, {d.hidden, tokens}}, name + "_FC1", module / "fc1", tokens, width, true, d.activation);
  h = dense(b, h, name + "_FC2", module / "fc2", width, out_tokens, true);
  return Value{h.node, {out_tokens, d.hidden}};
}

// A list of per-stage integers (depths, num_group_tokens, num_output_groups).
// assign_mlp_ratio: a pair (tokens, channels) or one number for both, times hidden_size, truncated.
std::pair<std::int64_t, std::int64_t> assign_widths(const Config& c, std::int64_t hidden) {
  std::vector<double> ratio{0.5, 4.0};
  if (const auto* v = c.raw({"assign_mlp_ratio"})) {
    const std::string where = fmt::format("{}: key 'assign_mlp_ratio'", c.origin());
    if (v->is_number()) ratio = {v->get<double>(), v->get<double>()};
    else if (v->is_array() && v->size() == 2 && (*v)[0].is_number() && (*v)[1].is_number())
      ratio = {(*v)[0].get<double>(), (*v)[1].get<double>()};
    else throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a number or two, found {}", v->dump()));
  } else {
    c.record_default("assign_mlp_ratio", ratio);
  }
  const auto width = [&](double r) { return static_cast<std::int64_t>(r * static_cast<double>(hidden)); };
  return {width(ratio[0]), width(ratio[1])};
}

// GroupViTTokenAssign: image tokens [n, hidden] and group tokens [groups, hidden] -> [out_groups, hidden].
Value token_assign(GraphBuilder& b, const Value& image, const Value& groups, const Scope& m, const Dims& d,
                   std::int64_t out_groups, std::int64_t tokens_width, std::int64_t channels_width,
                   const std::string& p) {
  auto g = norm(b, groups, p + "Norm_Tokens", {m / "norm_tokens"});
  auto x = norm(b, image, p + "Norm_X", {m / "norm_x"});
  auto projected = mixer_mlp(b, g, p + "Token_Mixer", m / "mlp_inter", d, tokens_width, out_groups);
  projected = norm(b, projected, p + "Norm_Post_Tokens", {m / "norm_post_tokens"});
  // GroupViTCrossAttentionLayer: the projected groups attend to the image tokens (no norm before), then an MLP
  // with norm2 before it, then norm_post.
  const Scope pre = m / "pre_assign_attn";
  auto a = cross_attention(b, projected, x, p + "Pre_Assign_Attention", attention_spec(pre / "attn", d));
  b.at(a).attention->sdpa = false;
  auto q = add(b, a, projected, p + "Pre_Assign_Add_1");
  auto f = feed_forward(b, norm(b, q, p + "Pre_Assign_Norm2", {pre / "norm2"}), p + "Pre_Assign_MLP",
                        mlp_spec(pre / "mlp", d, d.intermediate));
  q = norm(b, add(b, f, q, p + "Pre_Assign_Add_2"), p + "Pre_Assign_Norm_Post", {pre / "norm_post"});
  // GroupViTAssignAttention: one head; in eval a hard softmax over the groups, in training a Gumbel one.
  const Scope assign = m / "assign";
  auto assigned = cross_attention(b, q, x, p + "Assign_Attention",
                                  AttentionSpec{.hidden = d.hidden, .heads = 1, .module = assign,
                                                .q = assign / "q_proj", .k = assign / "k_proj",
                                                .v = assign / "v_proj", .o = assign / "proj"});
  b.at(assigned).attention->sdpa = false;
  auto out = add(b, assigned, q, p + "Assign_Add");
  auto c = feed_forward(b, norm(b, out, p + "Norm_New_X", {m / "norm_new_x"}), p + "Channel_MLP",
                        mlp_spec(m / "mlp_channels", d, channels_width));
  return add(b, c, out, p + "Channel_Add");
}

}  // namespace
}  // namespace groupvit_common_impl
using namespace groupvit_common_impl;

// GroupViTVisionTransformer: returns the pooled output (the mean of the layernormed last state).
Value vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const groupvit_common_impl::Dims d = groupvit_common_impl::read_dims(c, 384, 1536, 6, "gelu");
  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {224, 224, false}, 16);
  const Scope emb = root / "embeddings";
  const Scope conv = emb / "patch_embeddings" / "projection";
  auto pixels = b.input({g.channels, g.input.h, g.input.w}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {g.input_patches(), d.hidden}, {pixels}, conv);
  b.parameter(x, conv("weight"), {d.hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
  b.parameter(x, conv("bias"), {d.hidden}, graph::TensorRole::Bias);
  if (g.input.h < g.patch.h || g.input.w < g.patch.w)
    b.fail(x, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  vit::refuse_other_sizes(b, x, g, "GroupViT");
  x = norm(b, x, "Embeddings_LayerNorm", {emb / "layernorm"});
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb);
  b.parameter(pos, emb("position_embeddings"), {1, g.configured_patches(), d.hidden}, graph::TensorRole::Embedding);
  b.at(pos).dropout = c.number({"dropout"}, 0.0);
  x = pos;

  const auto depths = count_list(c, "depths", {6, 3, 3});
  const auto group_tokens = count_list(c, "num_group_tokens", {64, 8, 0});
  const auto output_groups = count_list(c, "num_output_groups", {64, 8, 8});
  if (group_tokens.size() != depths.size() || output_groups.size() != depths.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'num_group_tokens'", c.origin()),
                fmt::format("depths, num_group_tokens and num_output_groups list {}, {} and {} stages", depths.size(),
                            group_tokens.size(), output_groups.size()));
  const auto [tokens_width, channels_width] = groupvit_common_impl::assign_widths(c, d.hidden);

  std::int64_t block = 0;
  Value previous_groups;  // the previous stage's group tokens after its layers
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    const std::string p = fmt::format("Stage_{}_", s);
    const std::int64_t n = x.shape.front(), groups = group_tokens[s];
    const std::int64_t prev_out = s > 0 ? output_groups[s - 1] : 0;
    Value seq = x;
    if (groups > 0) {
      auto tokens = b.node(NodeType::Embedding, p + "Group_Tokens", {groups, d.hidden}, {x}, stage);
      b.parameter(tokens, stage("group_token"), {1, groups, d.hidden}, graph::TensorRole::Other);
      if (prev_out > 0) {  // group_projector: LayerNorm, then a token-mixing MLP of the previous group tokens
        const Scope projector = stage / "group_projector";
        auto h = norm(b, previous_groups, p + "Group_Projector_Norm", {projector / "0"});
        if (!previous_groups.shape.empty() && previous_groups.shape.front() != prev_out)
          b.fail(h, fmt::format("the previous stage hands on {} group tokens; group_projector mixes {}",
                                previous_groups.shape.front(), prev_out));
        h = groupvit_common_impl::mixer_mlp(b, Value{h.node, {prev_out, d.hidden}}, p + "Group_Projector", projector / "1", d,
                      d.hidden / 2, groups);
        tokens = add(b, h, tokens, p + "Group_Projector_Add");
      }
      seq = b.node(NodeType::Add, p + "Group_Concat", {n + groups, d.hidden}, {x, tokens});
    }
    for (std::int64_t i = 0; i < depths[s]; ++i, ++block) {
      b.set_block(static_cast<int>(block));
      seq = groupvit_common_impl::encoder_layer(b, seq, block, stage / "layers" / i, d, false);
    }
    b.set_block(-1);
    x = Value{seq.node, {n, d.hidden}};
    if (groups > 0) {
      previous_groups = Value{seq.node, {groups, d.hidden}};
      x = groupvit_common_impl::token_assign(b, x, previous_groups, stage / "downsample", d, output_groups[s], tokens_width,
                       channels_width, p);
    }
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  return b.node(NodeType::Pooler, "Mean_Pool", {d.hidden}, {x});
}

// GroupViTTextTransformer: CLIP's text layout with GroupViT's defaults (clip::text_tower takes CLIP's).
Value text_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const groupvit_common_impl::Dims d = groupvit_common_impl::read_dims(c, 256, 1024, 4, "quick_gelu");
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t vocab = c.dim({"vocab_size"}, 49408);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 77);
  const Scope emb = root / "embeddings";
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, ids, "Token_Embed", emb / "token_embedding", vocab, d.hidden);
  x = learned_positions(b, x, "Learned_Pos_Embed", emb / "position_embedding", positions, d.hidden);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = groupvit_common_impl::encoder_layer(b, x, i, root / "encoder" / "layers" / i, d, true);
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "final_layer_norm"});
  return Value{x.node, {d.hidden}};  // the EOS token's state: a gather
}

}  // namespace neurarch::families::groupvit
