// TimeSformer (models/timesformer/modeling_timesformer.py, transformers 4.47.1): every frame of a
// [num_frames, C, H, W] clip through one Conv2d patch embedding, a CLS token and learned spatial positions
// (interpolated for other frame sizes), then learned time_embeddings per frame unless attention_type is
// "space_only". Layers follow attention_type:
//   divided_space_time (default): temporal_layernorm -> temporal_attention over the frames of each patch ->
//     temporal_dense, added to the patch tokens; then layernorm_before -> attention over each frame's CLS copy
//     and patches; the CLS outputs are averaged over frames and the sum joins the residual; then the MLP.
//   joint_space_time: one ViT layer over all 1 + frames x patches tokens.
//   space_only: one ViT layer per frame (the frames stay apart: [frames x (1 + patches), C] per clip).
// Attention is a fused qkv Linear with the eager path only. The model ends in a LayerNorm; the video
// classifier reads token 0.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace timesformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

enum class Kind { Divided, Joint, SpaceOnly };

Kind read_kind(const Config& c) {
  const std::string type = c.text({"attention_type"}, "divided_space_time");
  if (type == "divided_space_time") return Kind::Divided;
  if (type == "joint_space_time") return Kind::Joint;
  if (type == "space_only") return Kind::SpaceOnly;
  throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'attention_type'", c.origin()),
              fmt::format("unknown attention type '{}' (divided_space_time, joint_space_time or space_only)", type));
}

struct Dims {
  std::int64_t hidden, heads, intermediate;
  std::string act;
  bool qkv_bias;
  double attention_dropout, hidden_dropout;
};

// TimeSformerAttention at `module` over x, attending within groups of `group` tokens.
Value grouped_attention(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Dims& d,
                        std::int64_t group) {
  auto h = attention(b, x, name,
                     {.hidden = d.hidden, .heads = d.heads, .module = module, .o = module / "output" / "dense",
                      .qkv = module / "attention" / "qkv", .qkv_bias = d.qkv_bias, .dropout = d.attention_dropout,
                      .output_dropout = d.hidden_dropout});
  b.at(h).attention->query_len = group;
  b.at(h).attention->kv_len = group;
  b.at(h).attention->sdpa = false;
  return h;
}

Value mlp(GraphBuilder& b, const Value& x, const Scope& l, const Dims& d, const BlockNames& n) {
  auto h = norm(b, x, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
  h = feed_forward(b, h, n.ffn(),
                   {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.act, .module = l,
                    .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                    .output_dropout = d.hidden_dropout, .inner_dropout = d.hidden_dropout});
  return add(b, h, x, n.add(2));
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Kind kind = read_kind(c);
  const Dims d{c.dim({"hidden_size"}, 768),
               c.dim({"num_attention_heads"}, 12),
               c.dim({"intermediate_size"}, 3072),
               c.text({"hidden_act"}, "gelu"),
               c.flag({"qkv_bias"}, true),
               c.number({"attention_probs_dropout_prob"}, 0.0),
               c.number({"hidden_dropout_prob"}, 0.0)};
  const std::int64_t frames = c.dim({"num_frames"}, 8);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t configured_image = c.dim({"image_size"}, 224);
  const std::int64_t image = in.image_size(configured_image);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t patches = (image / patch) * (image / patch);
  const std::int64_t hidden = d.hidden;

  const Scope root = in.head == Head::Base ? Scope() : Scope("timesformer");
  const Scope emb = root / "embeddings";
  const Scope projection = emb / "patch_embeddings" / "projection";
  auto pixels = b.input({frames, channels, image, image}, "pixels");
  // space_only keeps one sequence (CLS + patches) per frame; the others one sequence per clip.
  const graph::Shape tokens = kind == Kind::SpaceOnly ? graph::Shape{frames * (1 + patches), hidden}
                                                      : graph::Shape{1 + frames * patches, hidden};
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", tokens, {pixels}, projection);
  b.parameter(x, projection("weight"), {hidden, channels, patch, patch}, graph::TensorRole::Conv);
  b.parameter(x, projection("bias"), {hidden}, graph::TensorRole::Bias);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (image < patch) b.fail(x, fmt::format("a {}x{} frame is smaller than one {}x{} patch", image, image, patch, patch));
  // Sized for the configured frame; the reference interpolates them (nearest) for another size.
  x = vit::position_table(b, x, emb, (configured_image / patch) * (configured_image / patch) + 1, tokens);
  b.at(x).dropout = d.hidden_dropout;
  if (kind != Kind::SpaceOnly) {
    x = b.node(NodeType::LearnedPosEmbed, "Time_Embed", tokens, {x}, emb);
    b.parameter(x, emb("time_embeddings"), {1, frames, hidden}, graph::TensorRole::Embedding);
    b.at(x).dropout = d.hidden_dropout;
  }

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layer" / i;
    BlockNames n{i};
    if (kind != Kind::Divided) {
      const std::int64_t group = kind == Kind::Joint ? 1 + frames * patches : 1 + patches;
      auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
      h = grouped_attention(b, h, n.attention(), l / "attention", d, group);
      x = mlp(b, add(b, h, x, n.add(1)), l, d, n);
      continue;
    }
    // Temporal: each patch attends over its frames.
    const Value patch_tokens{x.node, {frames * patches, hidden}};
    auto t = norm(b, patch_tokens, fmt::format("Temporal_LayerNorm_{}", i), {l / "temporal_layernorm"});
    t = grouped_attention(b, t, fmt::format("Temporal_Attention_{}", i), l / "temporal_attention", d, frames);
    t = dense(b, t, fmt::format("Temporal_Dense_{}", i), l / "temporal_dense", hidden, hidden, true);
    t = add(b, t, patch_tokens, fmt::format("Add_{}_temporal", i));
    // Spatial: each frame's patches and a copy of the CLS token attend together.
    auto s = norm(b, Value{t.node, {frames * (1 + patches), hidden}}, n.norm(1, NormKind::LayerNorm),
                  {l / "layernorm_before"});
    s = grouped_attention(b, s, n.attention(), l / "attention", d, 1 + patches);
    // The CLS outputs averaged over frames, the patches regrouped: [1 + frames x patches] again, added to the
    // CLS token and the temporal result.
    auto joined = b.node(NodeType::Add, n.add(1), {1 + frames * patches, hidden}, {s, t});
    x = mlp(b, joined, l, d, n);
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  return classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace timesformer_impl

const Family& timesformer_family() {
  static const Family family{"timesformer", "models/timesformer/modeling_timesformer.py",
                             classes("Timesformer", {heads::ForVideoClassification}), timesformer_impl::build};
  return family;
}

}  // namespace neurarch::families
