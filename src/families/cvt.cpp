// CvT (models/cvt/modeling_cvt.py, transformers 4.47.1): per stage a convolutional token embedding (Conv2d with
// patch_sizes[i], patch_stride[i], patch_padding[i], then a LayerNorm over each position) and pre-norm layers
// whose attention projects q, k and v from the token map through a depthwise conv + BatchNorm ("dw_bn"; "avg"
// pools instead, and then q is taken as is) with stride_q / stride_kv, then through Linears, with the CLS
// token (cls_token[i]) kept out of the convolutions. The MLP is mlp_ratio wide with GELU. Attention is eager
// only. The classifier normalises the last stage's CLS token (or the mean of its tokens) with a LayerNorm.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/mix_transformer.hpp"

namespace neurarch::families {
namespace cvt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

template <typename T>
std::vector<T> typed_list(const Config& c, std::string_view key, std::vector<T> fallback, std::size_t count) {
  const auto* v = c.raw({key});
  if (!v) {
    if (fallback.size() != count)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                  fmt::format("the default has {} entries for {} stages; give the key", fallback.size(), count));
    return fallback;
  }
  std::vector<T> out;
  try {
    out = v->get<std::vector<T>>();
  } catch (const std::exception&) {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("unexpected value {}", v->dump()));
  }
  if (out.size() != count)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("has {} entries for {} stages", out.size(), count));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto embed = size_list(c, "embed_dim", {64, 192, 384});
  const std::size_t stages = embed.size();
  const auto patch = typed_list<std::int64_t>(c, "patch_sizes", {7, 3, 3}, stages);
  const auto patch_stride = typed_list<std::int64_t>(c, "patch_stride", {4, 2, 2}, stages);
  const auto patch_padding = typed_list<std::int64_t>(c, "patch_padding", {2, 1, 1}, stages);
  const auto heads = typed_list<std::int64_t>(c, "num_heads", {1, 3, 6}, stages);
  const auto depth = typed_list<std::int64_t>(c, "depth", {1, 2, 10}, stages);
  const auto mlp_ratio = typed_list<double>(c, "mlp_ratio", {4.0, 4.0, 4.0}, stages);
  const auto attention_drop = typed_list<double>(c, "attention_drop_rate", {0.0, 0.0, 0.0}, stages);
  const auto drop = typed_list<double>(c, "drop_rate", {0.0, 0.0, 0.0}, stages);
  const auto qkv_bias = typed_list<bool>(c, "qkv_bias", {true, true, true}, stages);
  const auto cls = typed_list<bool>(c, "cls_token", {false, false, true}, stages);
  const auto method = typed_list<std::string>(c, "qkv_projection_method", {"dw_bn", "dw_bn", "dw_bn"}, stages);
  const auto kernel_qkv = typed_list<std::int64_t>(c, "kernel_qkv", {3, 3, 3}, stages);
  const auto padding_kv = typed_list<std::int64_t>(c, "padding_kv", {1, 1, 1}, stages);
  const auto stride_kv = typed_list<std::int64_t>(c, "stride_kv", {2, 2, 2}, stages);
  const auto padding_q = typed_list<std::int64_t>(c, "padding_q", {1, 1, 1}, stages);
  const auto stride_q = typed_list<std::int64_t>(c, "stride_q", {1, 1, 1}, stages);
  for (const auto& m : method)
    if (m != "dw_bn" && m != "avg")
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'qkv_projection_method'", c.origin()),
                  fmt::format("'{}' is neither 'dw_bn' nor 'avg'", m));
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope("cvt");
  Value map = b.input({channels, image, image}, "pixels");
  Value x;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < stages; ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    const Scope emb = stage / "embedding" / "convolution_embeddings";
    const std::int64_t dim = embed[s];
    map = conv2d(b, map, fmt::format("Patch_Embed_Conv_{}", s),
                 {.module = emb / "projection", .in = map.shape.front(), .out = dim, .kernel = patch[s],
                  .stride = patch_stride[s], .padding = patch_padding[s]});
    const std::int64_t h = map.shape[1], w = map.shape[2];
    x = norm(b, mix::as_tokens(map), fmt::format("Patch_Embed_LayerNorm_{}", s), {emb / "normalization"});
    const std::int64_t extra = cls[s] ? 1 : 0;
    if (cls[s]) {
      x = b.node(NodeType::LearnedPosEmbed, fmt::format("CLS_Token_{}", s), {1 + h * w, dim}, {x}, stage);
      b.parameter(x, stage("cls_token"), {1, 1, embed.back()}, graph::TensorRole::Other);
    }
    b.at(x).dropout = drop[s];
    const std::int64_t k = kernel_qkv[s];
    for (std::int64_t j = 0; j < depth[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = stage / "layers" / j;
      const Scope self = l / "attention" / "attention";
      BlockNames n{block};
      auto normed = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
      const Value grid = mix::as_map(Value{normed.node, {h * w, dim}}, h, w);
      // The convolutional projection of q, k or v (the CLS token joins afterwards).
      auto project = [&](const char* which, std::int64_t stride, std::int64_t padding, bool query) -> Value {
        const Scope proj = self / fmt::format("convolution_projection_{}", which) / "convolution_projection";
        const std::string name = fmt::format("Conv_Projection_{}_{}", which, block);
        Value out = grid;
        if (method[s] == "dw_bn") {
          out = conv2d(b, grid, name,
                       {.module = proj / "convolution", .in = dim, .out = dim, .kernel = k, .stride = stride,
                        .padding = padding, .groups = dim, .bias = false});
          out = batch_norm(b, out, name + "_BatchNorm", proj / "normalization");
        } else if (!query) {
          out = pool(b, grid, name, false, k, stride, padding);
        }
        return Value{out.node, {extra + out.shape[1] * out.shape[2], dim}};
      };
      auto q = project("query", stride_q[s], padding_q[s], true);
      auto kproj = project("key", stride_kv[s], padding_kv[s], false);
      auto vproj = project("value", stride_kv[s], padding_kv[s], false);
      auto attn = attention(b, q, n.attention(),
                            {.hidden = dim, .heads = heads[s], .module = l / "attention",
                             .q = self / "projection_query", .k = self / "projection_key",
                             .v = self / "projection_value", .o = l / "attention" / "output" / "dense",
                             .qkv_bias = qkv_bias[s], .dropout = attention_drop[s], .output_dropout = drop[s]});
      b.at(attn).attention->kv_len = kproj.shape.front();
      b.at(attn).attention->sdpa = false;
      if (kproj.node != q.node) b.at(attn).inputs.push_back(kproj.node);
      if (vproj.node != kproj.node) b.at(attn).inputs.push_back(vproj.node);
      if (q.shape.front() != x.shape.front())
        b.fail(attn, fmt::format("stride_q {} leaves {} query tokens, which cannot be added to the {} input tokens",
                                 stride_q[s], q.shape.front(), x.shape.front()));
      auto residual = add(b, attn, x, n.add(1));
      auto m = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
      m = feed_forward(b, m, n.ffn(),
                       {.hidden = dim, .intermediate = static_cast<std::int64_t>(static_cast<double>(dim) * mlp_ratio[s]),
                        .activation = "gelu", .module = l, .up = l / "intermediate" / "dense",
                        .down = l / "output" / "dense", .output_dropout = drop[s]});
      x = add(b, m, residual, n.add(2));
    }
    b.set_block(-1);
    map = mix::as_map(Value{x.node, {h * w, dim}}, h, w);
  }
  if (in.head == Head::Base) return map;
  const std::int64_t last = embed.back();
  // The CLS token when the last stage has one, else the mean of the last map's tokens.
  auto pooled = norm(b, Value{x.node, {last}}, "Final_LayerNorm", {Scope("layernorm")});
  return classifier(b, pooled, "Classifier", Scope("classifier"), last, in.num_labels(), true);
}

}  // namespace
}  // namespace cvt_impl

const Family& cvt_family() {
  static const Family family{"cvt", "models/cvt/modeling_cvt.py",
                             classes("Cvt", {heads::ForImageClassification}), cvt_impl::build};
  return family;
}

}  // namespace neurarch::families
