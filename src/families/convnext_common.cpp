#include "families/convnext_common.hpp"

#include <fmt/format.h>

#include "blocks/response_norm.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families::convnext {

using namespace blocks;

Value channels_last(const Value& x) { return Value{x.node, {x.shape[1], x.shape[2], x.shape[0]}}; }
Value channels_first(const Value& x) { return Value{x.node, {x.shape[2], x.shape[0], x.shape[1]}}; }

Value channels_first_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  return channels_first(norm(b, channels_last(x), name, {module}));
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t block, std::int64_t width, const std::string& activation,
            const LayerNames& names) {
  b.set_block(static_cast<int>(block));
  BlockNames n{block};
  auto h = conv2d(b, x, fmt::format("Depthwise_Conv_{}", block),
                  {.module = names.dwconv, .in = width, .out = width, .kernel = 7, .padding = 3, .groups = width});
  h = norm(b, channels_last(h), n.norm(1, NormKind::LayerNorm), {names.norm});
  if (names.grn.empty()) {
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = width, .intermediate = 4 * width, .activation = activation, .module = names.layer,
                      .up = names.up, .down = names.down});
  } else {
    // GRN sits between the two pointwise layers, so they are separate nodes.
    h = dense(b, h, fmt::format("FFN_Up_{}", block), names.up, width, 4 * width, true, activation);
    h = global_response_norm(b, h, fmt::format("GRN_{}", block), names.grn);
    h = dense(b, h, fmt::format("FFN_Down_{}", block), names.down, 4 * width, width, true);
  }
  if (!names.scale.empty()) h = layer_scale(b, h, n.scale(1), names.scale);
  return add(b, channels_first(h), x, n.add(1));
}

Value model(const BuildInput& in, GraphBuilder& b, const Variant& variant) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const auto hidden = size_list(c, "hidden_sizes", {96, 192, 384, 768});
  const auto depths = size_list(c, "depths", {3, 3, 9, 3});
  require_length(c, "depths", depths, hidden.size());
  const std::string act = c.text({"hidden_act"}, "gelu");
  // V2 has no layer scale (its config has no layer_scale_init_value); V1 drops it when the value is 0.
  const bool scaled = !variant.grn && c.number({"layer_scale_init_value"}, 1e-6) > 0;
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope(std::string(variant.prefix));
  const Scope emb = root / "embeddings";
  auto x = b.input({channels, image, image}, "pixels");
  x = conv2d(b, x, "Stem_Conv",
             {.module = emb / "patch_embeddings", .in = channels, .out = hidden[0], .kernel = patch, .stride = patch});
  x = convnext::channels_first_norm(b, x, "Stem_LayerNorm", emb / "layernorm");

  std::int64_t block = 0;
  std::int64_t width = hidden[0];
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    if (s > 0 || width != hidden[s]) {
      const Scope down = stage / "downsampling_layer";
      x = convnext::channels_first_norm(b, x, fmt::format("Downsample_LayerNorm_{}", s), down / 0);
      x = conv2d(b, x, fmt::format("Downsample_Conv_{}", s),
                 {.module = down / 1, .in = width, .out = hidden[s], .kernel = 2, .stride = s > 0 ? 2 : 1});
    }
    width = hidden[s];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = stage / "layers" / j;
      x = convnext::layer(b, x, block, width, act,
                          {.layer = l, .dwconv = l / "dwconv", .norm = l / "layernorm", .up = l / "pwconv1",
                           .down = l / "pwconv2", .grn = variant.grn ? l / "grn" : Scope(),
                           .scale = scaled ? l("layer_scale_parameter") : ""});
    }
  }
  b.set_block(-1);
  x = pool(b, x, "Global_AvgPool", false);
  x = norm(b, Value{x.node, {width}}, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  return classifier(b, x, "Classifier", Scope("classifier"), width, in.num_labels(), true);
}

}  // namespace neurarch::families::convnext
