// Hiera (models/hiera/modeling_hiera.py, transformers 4.47.1): a Conv2d patch embedding (patch_size kernel,
// patch_stride, patch_padding) plus learned positions for every token, the tokens unrolled so that pooling is a
// max over contiguous groups, then stages of pre-norm layers with widths embed_dim x embed_dim_multiplier^i.
// Attention is a fused qkv Linear to the stage's width; in the first num_query_pool stage transitions the
// queries are max-pooled by prod(query_stride) (and the residual, projected by `proj` to the new width, too).
// Stages with masked_unit_attention (and the layer after one) attend within mask units of
// prod(masked_unit_size) / prod(query_stride)^stage tokens; the others globally. Attention is eager only. The
// pooler is the LayerNorm of the token mean; the classifier reads it.
#include <cmath>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace hiera_impl {
namespace {

using namespace blocks;
using graph::NodeType;

std::vector<bool> flags(const Config& c, std::string_view key, std::vector<bool> fallback) {
  const auto* v = c.raw({key});
  if (!v) return fallback;
  try {
    return v->get<std::vector<bool>>();
  } catch (const std::exception&) {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("expected a list of booleans, found {}", v->dump()));
  }
}

// The queries (and the projected residual) max-pooled over `stride` contiguous groups.
Value max_pool_tokens(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t stride) {
  auto out = b.node(NodeType::Pool, name, {x.shape[0] / stride, x.shape[1]}, {x});
  b.at(out).spatial = graph::SpatialAttrs{stride, 1, stride, 0, 1, true};
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t embed = c.dim({"embed_dim"}, 96);
  const vit::Size2 image_cfg = vit::read_size2(c, "image_size", {224, 224, true});
  const vit::Size2 patch = vit::read_size2(c, "patch_size", {7, 7, true});
  const vit::Size2 stride = vit::read_size2(c, "patch_stride", {4, 4, true});
  const auto* padding_json = c.raw({"patch_padding"});
  std::int64_t pad_h = 3, pad_w = 3;
  if (padding_json) {
    if (!padding_json->is_array() || padding_json->size() != 2 || !(*padding_json)[0].is_number_integer() ||
        !(*padding_json)[1].is_number_integer())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'patch_padding'", c.origin()),
                  "expected a [height, width] pair");
    pad_h = (*padding_json)[0].get<std::int64_t>();
    pad_w = (*padding_json)[1].get<std::int64_t>();
  }
  const auto depths = size_list(c, "depths", {2, 3, 16, 3});
  const auto heads = size_list(c, "num_heads", {1, 2, 4, 8});
  require_length(c, "num_heads", heads, depths.size());
  const auto masked = flags(c, "masked_unit_attention", {true, true, false, false});
  if (masked.size() != depths.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'masked_unit_attention'", c.origin()),
                fmt::format("has {} entries for {} stages", masked.size(), depths.size()));
  const vit::Size2 query_stride = vit::read_size2(c, "query_stride", {2, 2, true});
  const vit::Size2 unit = vit::read_size2(c, "masked_unit_size", {8, 8, true});
  const std::int64_t query_pools = c.integer({"num_query_pool"}, 3);
  const double multiplier = c.number({"embed_dim_multiplier"}, 2.0);
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t image_h = in.requested_image_size ? *in.requested_image_size : image_cfg.h;
  const std::int64_t image_w = in.requested_image_size ? *in.requested_image_size : image_cfg.w;

  const Scope root = in.head == Head::Base ? Scope() : Scope("hiera");
  const Scope emb = root / "embeddings";
  auto pixels = b.input({channels, image_h, image_w}, "pixels");
  auto map = conv2d(b, pixels, "Patch_Embed",
                    {.module = emb / "patch_embeddings" / "projection", .in = channels, .out = embed,
                     .kernel = patch.w, .stride = stride.w, .padding = pad_w});
  // Rectangular patches, strides or paddings are rare and not modelled (the Conv2d here is square).
  if (patch.h != patch.w || stride.h != stride.w || pad_h != pad_w)
    b.fail(map, "rectangular patch_size, patch_stride or patch_padding is not modelled");
  const std::int64_t configured_tokens = (image_cfg.h / stride.h) * (image_cfg.w / stride.w);
  std::int64_t tokens = map.shape[1] * map.shape[2];
  Value x = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", {tokens, embed}, {map}, emb);
  b.parameter(x, emb("position_embeddings"), {1, configured_tokens, embed}, graph::TensorRole::Embedding);
  if (tokens != configured_tokens)
    b.fail(x, fmt::format("the position table holds {} tokens for image_size {}x{}; a {}x{} image gives {} unless "
                          "forward() is called with interpolate_pos_encoding=True",
                          configured_tokens, image_cfg.h, image_cfg.w, image_h, image_w, tokens));

  const std::int64_t pool_stride = query_stride.h * query_stride.w;
  std::int64_t total = 0;
  std::vector<std::int64_t> cumulative;
  for (auto d : depths) cumulative.push_back(total += d);
  std::int64_t dim = embed;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const auto dim_out = static_cast<std::int64_t>(static_cast<double>(embed) * std::pow(multiplier, static_cast<double>(s)));
    const auto window = static_cast<std::int64_t>(static_cast<double>(unit.h * unit.w) /
                                                  std::pow(static_cast<double>(pool_stride), static_cast<double>(s)));
    const bool previous_masked = masked[s > 0 ? s - 1 : 0];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "layers" / j;
      BlockNames n{block};
      // Layers right after a stage boundary (the first num_query_pool of them) pool their queries.
      bool pooled = false;
      for (std::int64_t k = 0; k < query_pools && k < static_cast<std::int64_t>(cumulative.size()); ++k)
        pooled = pooled || cumulative[static_cast<std::size_t>(k)] == block;
      const std::int64_t q_stride = pooled ? pool_stride : 1;
      const bool unit_attention = masked[s] || (previous_masked && j == 0);
      const std::int64_t in_dim = j == 0 ? dim : dim_out;
      auto normed = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
      Value residual = x;
      if (in_dim != dim_out) {
        residual = dense(b, normed, fmt::format("Residual_Projection_{}", block), l / "proj", in_dim, dim_out, true);
        residual = max_pool_tokens(b, residual, fmt::format("Residual_Pool_{}", block), q_stride);
      }
      const std::int64_t windows = unit_attention ? std::max<std::int64_t>(1, tokens / (q_stride * window)) : 1;
      auto attn = b.node(NodeType::MultiHeadAttention, n.attention(), {tokens / q_stride, dim_out}, {normed},
                         l / "attn");
      b.at(attn).attention = graph::AttentionAttrs{heads[s], heads[s], dim_out / heads[s], tokens / q_stride / windows,
                                                   tokens / windows};
      b.at(attn).attention->fused_qkv = true;
      b.at(attn).attention->sdpa = false;
      linear_tensors(b, attn, l / "attn" / "qkv", in_dim, 3 * dim_out, true);
      linear_tensors(b, attn, l / "attn" / "proj", dim_out, dim_out, true, graph::Operand::Inner);
      if (dim_out % heads[s] != 0)
        b.fail(attn, fmt::format("{} channels do not split into {} heads", dim_out, heads[s]));
      if (q_stride > 1 && tokens % q_stride != 0)
        b.fail(attn, fmt::format("{} tokens do not pool by {}", tokens, q_stride));
      tokens /= q_stride;
      auto sum = add(b, attn, residual, n.add(1));
      auto m = norm(b, sum, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
      m = feed_forward(b, m, n.ffn(),
                       {.hidden = dim_out,
                        .intermediate = static_cast<std::int64_t>(static_cast<double>(dim_out) * mlp_ratio),
                        .activation = act, .module = l / "mlp", .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"});
      x = add(b, m, sum, n.add(2));
    }
    dim = dim_out;
  }
  b.set_block(-1);
  // The pooler: LayerNorm of the token mean.
  auto pooled = norm(b, Value{x.node, {dim}}, "Pooler_LayerNorm", {root / "pooler" / "layernorm"});
  if (in.head == Head::Base) return pooled;
  return classifier(b, pooled, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
}

}  // namespace
}  // namespace hiera_impl

const Family& hiera_family() {
  static const Family family{"hiera", "models/hiera/modeling_hiera.py",
                             classes("Hiera", {heads::ForImageClassification}), hiera_impl::build};
  return family;
}

}  // namespace neurarch::families
