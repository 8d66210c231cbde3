// EoMT (models/eomt/modular_eomt.py, transformers 4.57.6 and 5.24: EomtForUniversalSegmentation): a plain DINOv2-style
// ViT that segments by itself. Embeddings: a patch_size conv, position_embeddings (an nn.Embedding of the configured
// grid, added to the patches only; no interpolation, so only image_size runs), then cls_token and
// num_register_tokens register tokens in front. Layers are Dinov2Layer (norm1, attention, layer_scale1, norm2, MLP
// or SwiGLU, layer_scale2) with SiglipAttention's q_proj / k_proj / v_proj / out_proj. Before the last num_blocks
// layers num_queries learned queries are prepended; in training each of those layers first predicts (below) and
// masks its queries' attention with the predicted masks, and the model predicts once more after the final
// layernorm. A prediction: the shared layernorm; the queries through class_predictor (num_labels + 1) and a 3-layer
// mask_head; the patch tokens folded into the grid and upscaled num_upscale_blocks times (2x2 transposed conv,
// activation, 3x3 depthwise conv, channels-first LayerNorm); mask logits = queries x upscaled map. Persistent
// buffers: attn_mask_probs [num_blocks] and the loss's criterion.empty_weight [num_labels + 1].
#include <fmt/format.h>

#include "blocks/upsample.hpp"
#include "families/convnext_common.hpp"
#include "families/family.hpp"
#include "families/shared_parameters.hpp"

namespace neurarch::families {
namespace eomt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t hidden, layers, heads, intermediate, queries, blocks, upscales, labels, grid, prefix;
  std::string activation;
  bool swiglu;
};

// EomtForUniversalSegmentation.predict over the normed sequence [queries + prefix + grid^2, hidden]; every call
// after the first reuses the same modules (SharedParameters aliases their tensors).
Value predict(GraphBuilder& b, SharedParameters& shared, const Value& x, const Dims& d, const std::string& tag) {
  auto normed = shared.layer_norm(x, tag + "_LayerNorm", Scope("layernorm"));
  const Value queries{normed.node, {d.queries, d.hidden}};
  auto logits = b.node(NodeType::Linear, tag + "_Class_Predictor", {d.queries, d.labels + 1}, {queries},
                       Scope("class_predictor"));
  shared.linear(logits, Scope("class_predictor"), d.hidden, d.labels + 1);
  Value q = queries;
  for (const char* fc : {"fc1", "fc2", "fc3"}) {
    const Scope m = Scope("mask_head") / fc;
    q = b.node(NodeType::Linear, fmt::format("{}_Mask_Head_{}", tag, fc), {d.queries, d.hidden}, {q}, m);
    if (std::string_view(fc) != "fc3") b.at(q).activation = d.activation;
    shared.linear(q, m, d.hidden, d.hidden);
  }
  Value map{normed.node, {d.hidden, d.grid, d.grid}};
  for (std::int64_t i = 0; i < d.upscales; ++i) {
    const Scope layer = Scope("upscale_block") / "block" / i;
    const std::string name = fmt::format("{}_Upscale_{}", tag, i);
    // ConvTranspose2d(hidden, hidden, 2, stride 2): every input pixel becomes a 2x2 block.
    auto up = b.node(NodeType::Conv2d, name + "_Conv1", {d.hidden, 2 * map.shape[1], 2 * map.shape[2]}, {map},
                     layer / "conv1");
    b.at(up).spatial = graph::SpatialAttrs{2, 2, 1, 0, 1, false};
    b.at(up).activation = d.activation;
    shared(up, (layer / "conv1")("weight"), {d.hidden, d.hidden, 2, 2}, graph::TensorRole::Conv);
    shared(up, (layer / "conv1")("bias"), {d.hidden}, graph::TensorRole::Bias);
    auto dw = b.node(NodeType::Conv2d, name + "_Conv2", up.shape, {up}, layer / "conv2");
    b.at(dw).spatial = graph::SpatialAttrs{3, 3, 1, 1, d.hidden, false};
    shared(dw, (layer / "conv2")("weight"), {d.hidden, 1, 3, 3}, graph::TensorRole::Conv);
    map = b.node(NodeType::LayerNorm, name + "_LayerNorm2d", dw.shape, {dw}, layer / "layernorm2d");
    shared(map, (layer / "layernorm2d")("weight"), {d.hidden}, graph::TensorRole::Norm);
    shared(map, (layer / "layernorm2d")("bias"), {d.hidden}, graph::TensorRole::Bias);
  }
  // einsum("bqc,bchw->bqhw").
  return b.node(NodeType::Linear, tag + "_Mask_Logits", {d.queries, map.shape[1], map.shape[2]}, {q, map, logits});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  Dims d{};
  d.hidden = c.dim({"hidden_size"}, 1024);
  d.layers = c.dim({"num_hidden_layers"}, 24);
  d.heads = c.dim({"num_attention_heads"}, 16);
  d.activation = c.text({"hidden_act"}, "gelu");
  d.swiglu = c.flag({"use_swiglu_ffn"}, false);
  d.intermediate = d.hidden * c.dim({"mlp_ratio"}, 4);
  if (d.swiglu) d.intermediate = (d.intermediate * 2 / 3 + 7) / 8 * 8;  // Dinov2SwiGLUFFN's hidden width
  d.queries = c.dim({"num_queries"}, 200);
  d.blocks = c.integer({"num_blocks"}, 4);
  d.upscales = c.integer({"num_upscale_blocks"}, 2);
  d.labels = in.num_labels();
  const std::int64_t registers = c.integer({"num_register_tokens"}, 4);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured = c.dim({"image_size"}, 640);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t image = in.image_size(configured);
  d.grid = configured / patch;
  d.prefix = 1 + registers;

  auto pixels = b.input({channels, image, image}, "pixels");
  auto x = patch_embed(b, pixels, "Patch_Embed",
                       {.projection = Scope("embeddings") / "patch_embeddings" / "projection", .channels = channels,
                        .dim = d.hidden, .patch = patch, .extra_tokens = d.prefix});
  b.parameter(x, "embeddings.cls_token", {1, 1, d.hidden}, graph::TensorRole::Embedding);
  b.parameter(x, "embeddings.register_tokens", {1, registers, d.hidden}, graph::TensorRole::Embedding);
  x = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, Scope("embeddings"));
  b.parameter(x, "embeddings.position_embeddings.weight", {d.grid * d.grid, d.hidden}, graph::TensorRole::Embedding);
  if (image != configured)
    b.fail(x, fmt::format("position_embeddings cover the {}-px image's {}x{} grid; EoMT does not interpolate them",
                          configured, d.grid, d.grid));

  SharedParameters shared(b);
  const std::int64_t first_masked = d.layers - d.blocks;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    if (i == first_masked) {
      auto query = b.node(NodeType::Embedding, "Queries", {d.queries, d.hidden}, {x}, Scope("query"));
      b.parameter(query, "query.weight", {d.queries, d.hidden}, graph::TensorRole::Embedding);
      // torch.cat((query, hidden_states)): no parameters, nothing saved for backward.
      x = b.node(NodeType::Add, "Queries_Concat", {d.queries + x.shape[0], d.hidden}, {query, x});
    }
    if (i >= first_masked) predict(b, shared, x, d, fmt::format("Masked_Prediction_{}", i - first_masked));
    const Scope l = Scope("layers") / i;
    const Scope attn = l / "attention";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "norm1"};
    layer.attention = {.hidden = d.hidden, .heads = d.heads, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj"};
    layer.scale1 = l("layer_scale1.lambda1");
    layer.norm2 = {l / "norm2"};
    if (d.swiglu)
      layer.ffn = {.hidden = d.hidden, .intermediate = d.intermediate, .activation = "silu", .gated = true,
                   .module = mlp, .down = mlp / "weights_out", .gate_up = mlp / "weights_in"};
    else
      layer.ffn = {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .module = mlp,
                   .up = mlp / "fc1", .down = mlp / "fc2"};
    layer.scale2 = l("layer_scale2.lambda1");
    b.set_block(static_cast<int>(i));
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  auto masks = predict(b, shared, x, d, "Prediction");
  b.buffer(masks, "attn_mask_probs", {d.blocks}, DType::F32);
  b.buffer(masks, "criterion.empty_weight", {d.labels + 1}, DType::F32);
  return masks;
}

}  // namespace
}  // namespace eomt_impl

const Family& eomt_family() {
  static const Family family{"eomt", "models/eomt/modular_eomt.py",
                             {{"EomtForUniversalSegmentation", Head::PreTraining}}, eomt_impl::build};
  return family;
}

}  // namespace neurarch::families
