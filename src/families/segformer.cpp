// SegFormer's Mix Transformer encoder (models/segformer/modeling_segformer.py, transformers 4.47.1): per stage an
// overlapping patch embedding (Conv2d with kernel patch_sizes[i], stride strides[i], padding kernel / 2, then a
// LayerNorm), pre-norm layers whose efficient self-attention reads keys and values from a map reduced by an
// sr_ratios[i] x sr_ratios[i] stride conv + LayerNorm (none when the ratio is 1), and a Mix-FFN (dense1 -> 3x3
// depthwise conv -> act -> dense2), then a per-stage LayerNorm; the tokens are folded back into a map for the next
// stage (the last one too, with reshape_last_stage). The classifier averages the last stage's tokens.
#include <vector>

#include <fmt/format.h>

#include "families/mix_transformer.hpp"
#include "families/segformer.hpp"

namespace neurarch::families {

using namespace blocks;

using mix::as_map;
using mix::as_tokens;

segformer::EncoderOutput segformer::encoder(const BuildInput& in, GraphBuilder& b, const Scope& root,
                                            std::int64_t default_image) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto [depths, hidden, sr, patches, strides, heads, ratios] =
      mix::read_stages(c, mix::segformer_defaults(), std::nullopt);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0);
  const std::int64_t image = in.image_size(default_image);

  const Scope encoder = root / "encoder";
  EncoderOutput out;
  Value map = b.input({channels, image, image}, "pixels");
  Value x;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const auto stage = static_cast<std::int64_t>(s);
    const std::int64_t dim = hidden[s];
    const Scope embed = encoder / "patch_embeddings" / stage;
    map = conv2d(b, map, fmt::format("Patch_Embed_Conv_{}", s),
                 {.module = embed / "proj", .in = map.shape.front(), .out = dim, .kernel = patches[s],
                  .stride = strides[s], .padding = patches[s] / 2});
    const std::int64_t h = map.shape[1], w = map.shape[2];
    x = norm(b, as_tokens(map), fmt::format("Patch_Embed_LayerNorm_{}", s), {embed / "layer_norm"});
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = encoder / "block" / stage / j;
      const Scope self = l / "attention" / "self";
      const Scope mlp = l / "mlp";
      x = mix::layer(b, x, block,
                     {.dim = dim, .heads = heads[s], .sr_ratio = sr[s], .inner = dim * ratios[s], .h = h, .w = w,
                      .activation = act, .attention_dropout = attention_dropout, .hidden_dropout = hidden_dropout},
                     {.norm1 = l / "layer_norm_1", .norm2 = l / "layer_norm_2", .attention = l / "attention",
                      .q = self / "query", .k = self / "key", .v = self / "value",
                      .o = l / "attention" / "output" / "dense", .reduction = self / "sr",
                      .reduction_norm = self / "layer_norm", .dense1 = mlp / "dense1", .dwconv = mlp / "dwconv" / "dwconv",
                      .dense2 = mlp / "dense2"});
    }
    b.set_block(-1);
    x = norm(b, x, fmt::format("Stage_LayerNorm_{}", s), {encoder / "layer_norm" / stage});
    map = as_map(x, h, w);
    out.maps.push_back(map);
  }
  out.tokens = x;
  return out;
}

namespace segformer_impl {
namespace {

Value build(const BuildInput& in, GraphBuilder& b) {
  // SegFormer's image processor resizes to 512 x 512.
  const auto out = segformer::encoder(in, b, in.head == Head::Base ? Scope() : Scope("segformer"), 512);
  if (in.head == Head::Base) return out.maps.back();
  const std::int64_t width = out.tokens.shape.back();
  return classifier(b, Value{out.tokens.node, {width}}, "Classifier", Scope("classifier"), width, in.num_labels(),
                    true);
}

}  // namespace
}  // namespace segformer_impl

const Family& segformer_family() {
  static const Family family{"segformer", "models/segformer/modeling_segformer.py",
                             classes("Segformer", {heads::ForImageClassification}), segformer_impl::build};
  return family;
}

}  // namespace neurarch::families
