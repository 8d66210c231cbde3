// LeViT (models/levit/modeling_levit.py, transformers 4.47.1): a stem of four 3x3 stride-2 convs with BatchNorm
// (hidden_sizes[0] / 8, / 4, / 2, then hidden_sizes[0] channels; Hardswish between) gives image / 16 tokens.
// Every projection is a bias-free Linear followed by BatchNorm1d (MLPLayerWithBN: `<m>.linear`,
// `<m>.batch_norm`). Stages repeat residual attention (fused queries_keys_values: key_dim for q and k and
// attention_ratio x key_dim for v per head; a learned attention_biases [heads, resolution^2] table added to the
// scores; Hardswish before the projection) and residual MLPs (mlp_ratio wide, Hardswish); a stage with a
// "Subsample" down op then appends a subsampling attention (keys_values over the full grid, queries over the
// stride-2 grid, projected to the next width, not residual) and a residual MLP. Attention is eager only. The
// pooled output is the token mean; the classifier is BatchNorm1d + Linear on it. The attention_bias_idxs
// buffers are not persistent.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace levit_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// BatchNorm1d over the features of [tokens, C]: weight, bias, running statistics.
Value token_batch_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                       const std::string& activation = "") {
  auto out = b.node(NodeType::BatchNorm, name, x.shape, {x}, module);
  b.at(out).activation = activation;
  const std::int64_t features = x.shape.empty() ? 0 : x.shape.back();
  b.parameter(out, module("weight"), {features}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {features}, graph::TensorRole::Bias);
  b.buffer(out, module("running_mean"), {features}, b.param_dtype());
  b.buffer(out, module("running_var"), {features}, b.param_dtype());
  b.buffer(out, module("num_batches_tracked"), {}, DType::I64);
  return out;
}

// MLPLayerWithBN.
Value linear_bn(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                std::int64_t out, const std::string& activation = "") {
  auto h = dense(b, x, name + "_Linear", module / "linear", in, out, false);
  return token_batch_norm(b, h, name + "_BatchNorm", module / "batch_norm", activation);
}

// The attention product over `queries` x `keys` tokens, with the learned bias table.
Value attention_core(GraphBuilder& b, const Value& qkv, const std::string& name, const Scope& module,
                     std::int64_t heads, std::int64_t key_dim, std::int64_t value_width, std::int64_t queries,
                     std::int64_t keys, std::int64_t bias_points) {
  auto out = b.node(NodeType::MultiHeadAttention, name, {queries, value_width}, {qkv}, module);
  b.at(out).attention = graph::AttentionAttrs{heads, heads, key_dim, queries, keys};
  b.at(out).attention->sdpa = false;
  b.at(out).activation = "hardswish";
  b.parameter(out, module("attention_biases"), {heads, bias_points}, graph::TensorRole::Other);
  return out;
}

Value mlp(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t dim,
          std::int64_t inner) {
  auto h = linear_bn(b, x, name + "_Up", module / "linear_up", dim, inner, "hardswish");
  h = linear_bn(b, h, name + "_Down", module / "linear_down", inner, dim);
  return add(b, h, x, name + "_Add");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t kernel = c.dim({"kernel_size"}, 3);
  const std::int64_t stride = c.dim({"stride"}, 2);
  const std::int64_t padding = c.integer({"padding"}, 1);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const auto hidden = size_list(c, "hidden_sizes", {128, 256, 384});
  const auto heads = size_list(c, "num_attention_heads", {4, 8, 12});
  const auto depths = size_list(c, "depths", {4, 4, 4});
  const auto key_dim = size_list(c, "key_dim", {16, 16, 16});
  const auto mlp_ratio = size_list(c, "mlp_ratio", {2, 2, 2});
  const auto attention_ratio = size_list(c, "attention_ratio", {2, 2, 2});
  for (const auto& [key, list] : {std::pair{"num_attention_heads", &heads}, {"depths", &depths},
                                  {"key_dim", &key_dim}, {"mlp_ratio", &mlp_ratio},
                                  {"attention_ratio", &attention_ratio}})
    require_length(c, key, *list, hidden.size());
  // down_ops: ["Subsample", key_dim, heads, attention_ratio, mlp_ratio, stride] per stage transition.
  struct DownOp {
    std::int64_t key_dim, heads, attention_ratio, mlp_ratio, stride;
  };
  std::vector<DownOp> downs;
  if (const auto* v = c.raw({"down_ops"}); v && v->is_array()) {
    for (const auto& op : *v) {
      if (!op.is_array() || op.size() < 6 || !op[0].is_string() || op[0].get<std::string>() != "Subsample") {
        downs.push_back({0, 0, 0, 0, 0});
        continue;
      }
      for (std::size_t k = 1; k < 6; ++k)
        if (!op[k].is_number_integer() || op[k].get<std::int64_t>() < 0)
          throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'down_ops'", c.origin()),
                      fmt::format("expected [\"Subsample\", key_dim, heads, attention_ratio, mlp_ratio, stride], "
                                  "found {}",
                                  op.dump()));
      downs.push_back({op[1].get<std::int64_t>(), op[2].get<std::int64_t>(), op[3].get<std::int64_t>(),
                       op[4].get<std::int64_t>(), op[5].get<std::int64_t>()});
    }
  } else {
    for (std::size_t s = 0; s + 1 < hidden.size(); ++s)
      downs.push_back({key_dim[0], hidden[s] / key_dim[0], 4, 2, 2});
  }
  const std::int64_t configured = c.dim({"image_size"}, 224);
  const std::int64_t image = in.image_size(configured);

  const Scope root = in.head == Head::Base ? Scope() : Scope("levit");
  auto x = b.input({channels, image, image}, "pixels");
  const std::int64_t widths[] = {hidden[0] / 8, hidden[0] / 4, hidden[0] / 2, hidden[0]};
  std::int64_t width = channels;
  for (int i = 0; i < 4; ++i) {
    const Scope layer = root / "patch_embeddings" / fmt::format("embedding_layer_{}", i + 1);
    x = conv2d(b, x, fmt::format("Stem_Conv_{}", i + 1),
               {.module = layer / "convolution", .in = width, .out = widths[i], .kernel = kernel, .stride = stride,
                .padding = padding, .bias = false});
    x = batch_norm(b, x, fmt::format("Stem_BatchNorm_{}", i + 1), layer / "batch_norm", i < 3 ? "hardswish" : "");
    width = widths[i];
  }
  // The attention bias tables are sized for image_size / patch_size; the reference refuses other grids.
  std::int64_t resolution = configured / patch;
  if (x.shape.size() == 3 && (x.shape[1] != resolution || x.shape[2] != resolution))
    b.fail(x, fmt::format("LeViT's attention biases are sized for a {}x{} grid (image_size {} / patch_size {}); a "
                          "{}-pixel image gives {}x{}",
                          resolution, resolution, configured, patch, image, x.shape[1], x.shape[2]));
  x = Value{x.node, {resolution * resolution, width}};

  std::int64_t block = 0;
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    const std::int64_t dim = hidden[s];
    std::int64_t index = 0;
    auto next = [&]() { return stage / "layers" / index++; };
    const std::int64_t tokens = resolution * resolution;
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope attn = next() / "module";
      const std::int64_t kd = key_dim[s], h = heads[s], value_width = attention_ratio[s] * kd * h;
      auto qkv = linear_bn(b, x, fmt::format("QKV_{}", block), attn / "queries_keys_values", dim,
                           value_width + 2 * kd * h);
      auto a = attention_core(b, qkv, fmt::format("Attention_{}", block), attn, h, kd, value_width, tokens, tokens,
                              tokens);
      a = linear_bn(b, a, fmt::format("Projection_{}", block), attn / "projection", value_width, dim);
      x = add(b, a, x, fmt::format("Add_{}_1", block));
      if (mlp_ratio[s] > 0) x = mlp(b, x, fmt::format("MLP_{}", block), next() / "module", dim, dim * mlp_ratio[s]);
    }
    if (s < downs.size() && downs[s].stride > 0 && s + 1 < hidden.size()) {
      b.set_block(static_cast<int>(block));
      const DownOp& d = downs[s];
      const Scope sub = next();
      const std::int64_t out_resolution = (resolution - 1) / d.stride + 1;
      const std::int64_t value_width = d.attention_ratio * d.key_dim * d.heads;
      auto kv = linear_bn(b, x, fmt::format("Subsample_KV_{}", block), sub / "keys_values", dim,
                          value_width + d.key_dim * d.heads);
      auto q = linear_bn(b, Value{x.node, {out_resolution * out_resolution, dim}},
                         fmt::format("Subsample_Q_{}", block), sub / "queries", dim, d.key_dim * d.heads);
      auto a = attention_core(b, q, fmt::format("Subsample_Attention_{}", block), sub, d.heads, d.key_dim,
                              value_width, out_resolution * out_resolution, tokens, tokens);
      b.at(a).inputs.push_back(kv.node);
      x = linear_bn(b, a, fmt::format("Subsample_Projection_{}", block), sub / "projection", value_width,
                    hidden[s + 1]);
      resolution = out_resolution;
      if (d.mlp_ratio > 0)
        x = mlp(b, x, fmt::format("Subsample_MLP_{}", block), next() / "module", hidden[s + 1],
                hidden[s + 1] * d.mlp_ratio);
      ++block;
    }
  }
  b.set_block(-1);
  const std::int64_t last = hidden.back();
  if (in.head == Head::Base) return x;
  // The classifier normalises the token mean, then projects it.
  auto pooled = token_batch_norm(b, Value{x.node, {1, last}}, "Classifier_BatchNorm", Scope("classifier") / "batch_norm");
  return classifier(b, Value{pooled.node, {last}}, "Classifier", Scope("classifier") / "linear", last,
                    in.num_labels(), true);
}

}  // namespace
}  // namespace levit_impl

const Family& levit_family() {
  static const Family family{"levit", "models/levit/modeling_levit.py",
                             classes("Levit", {heads::ForImageClassification}), levit_impl::build};
  return family;
}

}  // namespace neurarch::families
