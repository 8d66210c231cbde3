// YOLOS (models/yolos/modeling_yolos.py, transformers 4.47.1): ViT's layers over [CLS, patches,
// detection tokens] for a rectangular image_size [height, width] (an int one cannot be constructed). The
// initial and the per-layer "mid" position tables (added after every layer but the last) are interpolated
// to the input on each forward, so any size runs. YolosForObjectDetection reads the last
// num_detection_tokens rows with two 3-layer MLPs: class logits (num_labels + 1) and sigmoid boxes.
#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace yolos_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// DETR's MLP head: relu between layers, a plain last layer.
Value mlp_head(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t hidden,
               std::int64_t out, const std::string& last_activation) {
  auto h = dense(b, x, name + "_MLP_1", module / "layers" / 0, hidden, hidden, true, "relu");
  h = dense(b, h, name + "_MLP_2", module / "layers" / 1, hidden, hidden, true, "relu");
  if (last_activation.empty()) return classifier(b, h, name + "_Logits", module / "layers" / 2, hidden, out, true);
  return dense(b, h, name + "_Predictor", module / "layers" / 2, hidden, out, true, last_activation);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {512, 864, true}, 16);
  const std::int64_t detections = c.integer({"num_detection_tokens"}, 100);
  const bool mid = c.flag({"use_mid_position_embeddings"}, true);
  const std::int64_t patch = g.patch.h;

  Scope root = in.head == Head::Base ? Scope() : Scope("vit");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1 + detections);
  if (!g.configured.pair || g.patch.pair)
    b.fail(x, "YOLOS needs image_size as [height, width] and an int patch_size: the reference indexes "
              "image_size[0] and squares patch_size when it builds the position tables");
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("detection_tokens"), {1, detections, hidden}, graph::TensorRole::Other);
  auto pos = vit::position_table(b, x, emb, g.configured_patches() + detections + 1, x.shape);
  x = pos;

  Value mid_table;
  if (mid) {
    // The reference sizes these tables by H * W // patch^2, not by whole patches per side.
    const std::int64_t mid_rows = 1 + g.configured.h * g.configured.w / (patch * patch) + detections;
    mid_table = b.node(NodeType::LearnedPosEmbed, "Mid_Pos_Embed", {enc.count - 1, x.shape.front(), hidden}, {pos},
                       root / "encoder");
    b.parameter(mid_table, (root / "encoder")("mid_position_embeddings"), {enc.count - 1, 1, mid_rows, hidden}, graph::TensorRole::Embedding);
    if (mid_rows - 1 - detections != g.configured_patches())
      b.fail(mid_table, fmt::format("the mid position tables hold {} patch rows, which do not fold into the {}x{} "
                                    "patch grid of the configured image_size",
                                    mid_rows - 1 - detections, g.configured.h / patch, g.configured.w / patch));
  }
  enc.layers = root / "encoder" / "layer";
  for (std::int64_t i = 0; i < enc.count; ++i) {
    x = vit::vit_layer(b, x, enc, i, i);
    if (mid && i + 1 < enc.count) {
      b.set_block(static_cast<int>(i));
      x = b.node(NodeType::Add, fmt::format("Mid_Pos_Add_{}", i), x.shape, {x, mid_table});
      b.set_block(-1);
    }
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::Base) return pooler(b, x, "Pooler", root / "pooler" / "dense", hidden, "tanh");
  Value tokens{x.node, {detections, hidden}};
  mlp_head(b, tokens, "Box", Scope("bbox_predictor"), hidden, 4, "sigmoid");
  return mlp_head(b, tokens, "Class", Scope("class_labels_classifier"), hidden, in.num_labels() + 1, "");
}

}  // namespace
}  // namespace yolos_impl

const Family& yolos_family() {
  static const Family family{"yolos", "models/yolos/modeling_yolos.py",
                             classes("Yolos", {heads::ForObjectDetection}), yolos_impl::build};
  return family;
}

}  // namespace neurarch::families
