// DPT (models/dpt/modeling_dpt.py, transformers 4.47.1): a ViT (ViT's layer names under embeddings / encoder,
// CLS token, a position table sized for image_size and resized to any input grid) whose layers
// backbone_out_indices feed DPT's neck (dpt_common). DPTModel is the ViT alone, with a tanh pooler;
// DPTForDepthEstimation adds the neck and a conv -> x2 upsample -> conv -> ReLU -> 1x1 conv -> ReLU head (an
// optional ReLU'd 3x3 projection first, add_projection); DPTForSemanticSegmentation a conv-BN-ReLU-1x1-x2 head
// and an auxiliary one on the finest fused map. The hybrid variant (is_hybrid, a BiT backbone) and external
// backbones (backbone_config) are refused.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/dpt_common.hpp"
#include "families/family.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace dpt_impl {
namespace {

using namespace blocks;

// Which class is built; the Head values stand for DPT's dense heads (DETR uses PreTraining the same way).
constexpr Head kDepth = Head::PreTraining;
constexpr Head kSegmentation = Head::TokenClassification;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (c.flag({"is_hybrid"}, false))
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'is_hybrid'", c.origin()),
                "DPT-hybrid (a BiT backbone under the ViT) is not built yet");
  for (const char* key : {"backbone_config", "backbone"})
    if (const auto* v = c.raw({key}); v && !v->is_null())
      throw Error(ErrorKind::Unsupported, fmt::format("{}: key '{}'", c.origin(), key),
                  "DPT over an external backbone (load_backbone) is not built yet");
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {384, 384, false}, 16);
  const Scope root = in.head == Head::Base ? Scope() : Scope("dpt");
  enc.layers = root / "encoder" / "layer";

  const Scope emb = root / "embeddings";
  Value x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  // The table is sized for image_size and resized (bilinear) to the input's patch grid.
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);

  // hidden_states[1:][idx] for idx in backbone_out_indices: the outputs of those layers, in layer order.
  std::vector<std::int64_t> taps;
  if (in.head != Head::Base) {
    const auto* v = c.raw({"backbone_out_indices"});
    std::vector<std::int64_t> wanted{2, 5, 8, 11};
    if (v && v->is_array()) {
      wanted.clear();
      for (const auto& e : *v)
        if (e.is_number_integer()) wanted.push_back(e.get<std::int64_t>());
    }
    for (std::int64_t i = 0; i < enc.count; ++i)
      if (std::find(wanted.begin(), wanted.end(), i) != wanted.end()) taps.push_back(i);
  }
  std::vector<Value> tapped;
  for (std::int64_t i = 0; i < enc.count; ++i) {
    x = vit::vit_layer(b, x, enc, i, i);
    if (std::find(taps.begin(), taps.end(), i) != taps.end()) tapped.push_back(x);
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return pooler(b, x, "Pooler", Scope("pooler") / "dense", hidden);

  dpt::NeckSpec neck;
  neck.neck = Scope("neck");
  neck.token_width = hidden;
  neck.grid_h = g.input.h / g.patch.h;
  neck.grid_w = g.input.w / g.patch.w;
  neck.neck_hidden = size_list(c, "neck_hidden_sizes", {96, 192, 384, 768});
  neck.factors = dpt::factor_list(c, "reassemble_factors", {4, 2, 1, 0.5});
  neck.fusion = c.dim({"fusion_hidden_size"}, 256);
  neck.readout = dpt::read_readout(c);
  neck.readout_activation = enc.activation;
  neck.residual_batch_norm = c.flag({"use_batch_norm_in_fusion_residual"}, false);
  const auto* bias = c.raw({"use_bias_in_fusion_residual"});
  neck.residual_bias = bias && !bias->is_null() ? c.flag({"use_bias_in_fusion_residual"}) : !neck.residual_batch_norm;
  if (neck.factors.size() != neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'reassemble_factors'", c.origin()),
                fmt::format("has {} entries for {} neck_hidden_sizes", neck.factors.size(), neck.neck_hidden.size()));
  if (tapped.size() != neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'backbone_out_indices'", c.origin()),
                fmt::format("selects {} of the {} layers for {} neck_hidden_sizes", tapped.size(), enc.count,
                            neck.neck_hidden.size()));
  const auto fused = dpt::neck(b, tapped, neck);
  const std::int64_t fusion = neck.fusion;
  const Value head_in = fused[dpt::python_index(c, "head_in_index", c.integer({"head_in_index"}, -1), fused.size())];

  if (in.head == kDepth) {
    Value h = head_in;
    const Scope head = Scope("head");
    if (c.flag({"add_projection"}, false)) {
      h = conv2d(b, h, "Head_Projection",
                 {.module = head / "projection", .in = 256, .out = 256, .kernel = 3, .padding = 1});
      b.at(h).activation = "relu";
    }
    h = conv2d(b, h, "Head_Conv1",
               {.module = head / "head" / 0, .in = fusion, .out = fusion / 2, .kernel = 3, .padding = 1});
    h = resize(b, h, "Head_Upsample", 2 * h.shape[1], 2 * h.shape[2]);
    h = conv2d(b, h, "Head_Conv2", {.module = head / "head" / 2, .in = fusion / 2, .out = 32, .kernel = 3, .padding = 1});
    b.at(h).activation = "relu";
    h = conv2d(b, h, "Head_Conv3", {.module = head / "head" / 4, .in = 32, .out = 1, .kernel = 1});
    b.at(h).activation = "relu";
    return Value{h.node, {h.shape[1], h.shape[2]}};  // predicted_depth: the channel squeezed away
  }

  // Semantic segmentation: conv-BN-ReLU-dropout-1x1 conv heads; the main one upsamples x2.
  const std::int64_t labels = in.num_labels();
  const auto seg_head = [&](const Value& from, const Scope& module, const std::string& name) {
    Value h = conv2d(b, from, name + "_Conv1",
                     {.module = module / 0, .in = fusion, .out = fusion, .kernel = 3, .padding = 1, .bias = false});
    h = batch_norm(b, h, name + "_BatchNorm", module / 1, "relu");
    return conv2d(b, h, name + "_Classifier", {.module = module / 4, .in = fusion, .out = labels, .kernel = 1});
  };
  Value logits = seg_head(head_in, Scope("head") / "head", "Head");
  logits = resize(b, logits, "Head_Upsample", 2 * logits.shape[1], 2 * logits.shape[2]);
  if (c.flag({"use_auxiliary_head"}, true)) seg_head(fused.back(), Scope("auxiliary_head") / "head", "Auxiliary_Head");
  return logits;
}

}  // namespace
}  // namespace dpt_impl

const Family& dpt_family() {
  static const Family family{"dpt", "models/dpt/modeling_dpt.py",
                             {{"DPTModel", Head::Base},
                              {"DPTForDepthEstimation", dpt_impl::kDepth},
                              {"DPTForSemanticSegmentation", dpt_impl::kSegmentation}},
                             dpt_impl::build};
  return family;
}

}  // namespace neurarch::families
