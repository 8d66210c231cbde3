// BEiT (models/beit/modeling_beit.py, transformers 4.47.1), shared with Data2VecVision: ViT's layer
// names plus small extras: no key bias; optional per-layer or shared relative position bias tables for the
// configured patch grid; optional absolute positions; lambda_1/lambda_2 layer scale. With use_mean_pooling
// the final LayerNorm is an Identity and the pooler layernorms the mean of the patch tokens. Both position
// kinds are interpolated to the input's patch grid on every forward, so any image size runs.
#include "families/vit_common.hpp"

namespace neurarch::families {

namespace vit {

using namespace blocks;
using graph::NodeType;

Value beit_model(const BuildInput& in, GraphBuilder& b, std::string_view prefix, bool base_pooler) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 3072);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool absolute = c.flag({"use_absolute_position_embeddings"}, false);
  const bool relative = c.flag({"use_relative_position_bias"}, false);
  const bool shared = c.flag({"use_shared_relative_position_bias"}, false);
  const bool scaled = c.number({"layer_scale_init_value"}, 0.1) > 0;
  const bool mean_pooling = c.flag({"use_mean_pooling"}, true);
  const Geometry g = read_geometry(in, {224, 224, false}, 16);
  const bool mim = in.head == Head::MaskedLM;
  const bool pooled = in.head == Head::Base ? base_pooler : in.head == Head::ImageClassification;

  Scope root = in.head == Head::Base ? Scope() : Scope(std::string(prefix));
  Scope emb = root / "embeddings";
  auto x = pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (c.flag({"use_mask_token"}, false)) b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (absolute) x = position_table(b, x, emb, g.configured_patches() + 1, x.shape);

  // The tables cover the configured patch grid (window) plus the 3 CLS relations.
  const std::int64_t distances = (2 * (g.configured.h / g.patch.h) - 1) * (2 * (g.configured.w / g.patch.w) - 1) + 3;
  const std::int64_t seq = x.shape.front();
  if (shared) {
    Scope bias = root / "encoder" / "relative_position_bias";
    auto table = b.node(NodeType::Embedding, "Shared_Relative_Position_Bias", {heads, seq, seq}, {x}, bias);
    b.parameter(table, bias("relative_position_bias_table"), {distances, heads}, graph::TensorRole::Embedding);
  }
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    BlockNames n{i};
    Scope l = root / "encoder" / "layer" / i;
    Scope attn = l / "attention";
    Scope self = attn / "attention";
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = self / "query", .k = self / "key",
                   .v = self / "value", .o = attn / "output" / "dense", .qkv_bias = false});
    // The key projection is the one without a bias.
    b.parameter(h, self("query.bias"), {hidden}, graph::TensorRole::Bias);
    b.parameter(h, self("value.bias"), {hidden}, graph::TensorRole::Bias);
    if (relative) b.parameter(h, self("relative_position_bias.relative_position_bias_table"), {distances, heads}, graph::TensorRole::Embedding);
    if (scaled) h = layer_scale(b, h, n.scale(1), l("lambda_1"));
    auto residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = act, .module = l,
                      .up = l / "intermediate" / "dense", .down = l / "output" / "dense"});
    if (scaled) h = layer_scale(b, h, n.scale(2), l("lambda_2"));
    x = add(b, h, residual, n.add(2));
  }
  b.set_block(-1);
  if (!mean_pooling) x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (mim) {
    x = norm(b, x, "MIM_LayerNorm", {Scope("layernorm")});
    // Visual-token logits for the patches (the CLS row is dropped).
    Value patches{x.node, {x.shape.front() - 1, hidden}};
    return lm_head(b, patches, "LM_Head",
                   {.module = Scope("lm_head"), .hidden = hidden, .vocab = c.dim({"vocab_size"}, 8192), .bias = true});
  }
  Value features = first_token(x);
  if (pooled && mean_pooling) {
    Scope pool = root / "pooler" / "layernorm";
    features = b.node(NodeType::Pooler, "Pooler", {hidden}, {x}, root / "pooler");
    b.parameter(features, pool("weight"), {hidden}, graph::TensorRole::Norm);
    b.parameter(features, pool("bias"), {hidden}, graph::TensorRole::Bias);
  }
  if (in.head == Head::ImageClassification)
    return classifier(b, features, "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
  return x;
}

}  // namespace vit

namespace beit_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return vit::beit_model(in, b, "beit", true); }

}  // namespace
}  // namespace beit_impl

const Family& beit_family() {
  static const Family family{"beit", "models/beit/modeling_beit.py",
                             classes("Beit",
                                     {heads::ForImageClassification, {"ForMaskedImageModeling", Head::MaskedLM}}),
                             beit_impl::build};
  return family;
}

}  // namespace neurarch::families
