#include "families/deformable_detr_common.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "blocks/deformable_attention.hpp"
#include "blocks/group_norm.hpp"
#include "core/error.hpp"
#include "families/detr_common.hpp"

namespace neurarch::families::deformable_detr {
namespace deformable_detr_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t d = 256;
  std::int64_t encoder_layers = 6, decoder_layers = 6;
  std::int64_t encoder_heads = 8, decoder_heads = 8;
  std::int64_t encoder_ffn = 1024, decoder_ffn = 1024;
  std::int64_t encoder_points = 4, decoder_points = 4;
  std::int64_t levels = 4;
  double dropout = 0.1, attention_dropout = 0.0, activation_dropout = 0.0;
  std::string activation = "relu";
  std::int64_t queries = 300;  ///< num_queries, or two_stage_num_proposals in the two-stage variant
  bool two_stage = false;
  bool box_refine = false;
};

Dims read_dims(const Config& c, const Layout& layout) {
  Dims d;
  d.d = c.dim({"d_model"}, 256);
  d.encoder_layers = c.dim({"encoder_layers"}, 6);
  d.decoder_layers = c.dim({"decoder_layers"}, 6);
  d.encoder_heads = c.dim({"encoder_attention_heads"}, 8);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 8);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, layout.encoder_ffn);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, layout.decoder_ffn);
  d.encoder_points = c.dim({"encoder_n_points"}, 4);
  d.decoder_points = c.dim({"decoder_n_points"}, 4);
  d.levels = c.dim({"num_feature_levels"}, layout.levels);
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.activation = c.text({"activation_function"}, "relu");
  d.two_stage = c.flag({"two_stage"}, layout.two_stage);
  d.box_refine = c.flag({"with_box_refine"}, layout.box_refine);
  d.queries = d.two_stage ? c.dim({"two_stage_num_proposals"}, 300) : c.dim({"num_queries"}, layout.queries);
  return d;
}

FeedForwardSpec ffn(const Dims& d, const Scope& layer, std::int64_t width) {
  return FeedForwardSpec{.hidden = d.d, .intermediate = width, .activation = d.activation, .module = layer,
                         .up = layer / "fc1", .down = layer / "fc2", .output_dropout = d.dropout,
                         .inner_dropout = d.activation_dropout};
}

// Each backbone map through input_proj.N (1x1 convolution, GroupNorm of 32 groups); levels beyond the backbone's
// maps come from 3x3 stride-2 convolutions, the first on the last backbone map, the next on the level before. The
// maps are flattened and concatenated into [sum of H x W, d_model] tokens.
struct Levels {
  Value tokens;
  std::vector<std::pair<std::int64_t, std::int64_t>> sizes;  ///< H, W per level
};

Levels input_levels(GraphBuilder& b, const detr::Backbone& bb, const Dims& d, const Scope& model) {
  const Scope proj = model / "input_proj";
  const auto outs = static_cast<std::int64_t>(bb.maps.size());
  std::vector<Value> maps;
  auto project = [&](const Value& x, std::int64_t level, std::int64_t in, std::int64_t kernel, std::int64_t stride) {
    auto conv = conv2d(b, x, fmt::format("Input_Projection_{}", level),
                       {.module = proj / level / 0, .in = in, .out = d.d, .kernel = kernel, .stride = stride,
                        .padding = kernel / 2});
    maps.push_back(group_norm(b, conv, fmt::format("Input_Projection_{}_GroupNorm", level), proj / level / 1, 32));
  };
  if (d.levels > 1) {
    for (std::int64_t i = 0; i < outs; ++i)
      project(bb.maps[static_cast<std::size_t>(i)], i, bb.channels[static_cast<std::size_t>(i)], 1, 1);
    std::int64_t in = bb.channels.back();
    for (std::int64_t level = outs; level < d.levels; ++level) {
      project(level == outs ? bb.maps.back() : maps.back(), level, in, 3, 2);
      in = d.d;
    }
  } else {
    project(bb.maps.back(), 0, bb.channels.back(), 1, 1);
  }

  Levels out;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const Value& m = maps[i];
    const std::int64_t h = m.shape.size() == 3 ? m.shape[1] : 0, w = m.shape.size() == 3 ? m.shape[2] : 0;
    out.sizes.emplace_back(h, w);
    const Value flat{m.node, {h * w, d.d}};
    out.tokens = i == 0 ? flat
                        : b.node(NodeType::Add, fmt::format("Flatten_Levels_{}", i),
                                 {out.tokens.shape.front() + h * w, d.d}, {out.tokens, flat});
  }
  // The reference indexes input_proj and level_embed by level: more backbone maps than levels fail there.
  if (outs > std::max<std::int64_t>(d.levels, 1) || (d.levels <= 1 && outs != 1))
    b.fail(out.tokens, fmt::format("the backbone hands on {} feature maps but num_feature_levels is {}", outs, d.levels));
  return out;
}

// Sine positions per level (DeformableDetrSinePositionEmbedding, no parameters) or learned row/column tables
// (position_embedding.*, 50 rows each), plus level_embed[level] on every token of that level.
Value level_positions(GraphBuilder& b, const Config& c, const Levels& levels, const Dims& d, const Scope& model,
                      const Layout& layout) {
  const std::string type = c.text({"position_embedding_type"}, "sine");
  if (type != "sine" && type != "learned")
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'position_embedding_type'", c.origin()),
                fmt::format("expected 'sine' or 'learned', found '{}'", type));
  auto pos = b.node(NodeType::LearnedPosEmbed, type == "learned" ? "Learned_Level_Positions" : "Sine_Level_Positions",
                    levels.tokens.shape, {levels.tokens}, model);
  b.parameter(pos, model("level_embed"), {d.levels, d.d}, graph::TensorRole::Embedding);
  if (type == "learned") {
    Scope table = model;
    for (const auto& part : layout.position_table) table = table / part;
    b.parameter(pos, table("row_embeddings.weight"), {50, d.d / 2}, graph::TensorRole::Embedding);
    b.parameter(pos, table("column_embeddings.weight"), {50, d.d / 2}, graph::TensorRole::Embedding);
    for (const auto& [h, w] : levels.sizes)
      if (h > 50 || w > 50)
        b.fail(pos, fmt::format("the learned row/column tables hold 50 positions; a {}x{} level needs more", h, w));
  }
  return pos;
}

DeformableAttentionSpec sampling(const Dims& d, std::int64_t heads, std::int64_t points, const Scope& module,
                                 int coords) {
  return DeformableAttentionSpec{.hidden = d.d, .heads = heads, .levels = d.levels, .points = points,
                                 .reference_coords = coords, .module = module, .output_dropout = d.dropout};
}

Value encoder(GraphBuilder& b, const Dims& d, Value x, const Value& pos, const Scope& stack) {
  const int first = b.next_block();
  for (std::int64_t i = 0; i < d.encoder_layers; ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope l = stack / "layers" / i;
    const BlockNames n{i};
    auto queries = add(b, x, pos, n.attention() + "_Pos_Add");
    auto attn = deformable_attention(b, queries, x, n.attention(),
                                     sampling(d, d.encoder_heads, d.encoder_points, l / "self_attn", 2));
    x = norm(b, add(b, attn, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    auto f = feed_forward(b, x, n.ffn(), ffn(d, l, d.encoder_ffn));
    x = norm(b, add(b, f, x, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
  }
  b.set_block(-1);
  return x;
}

// Where a head's weights live: `module` names them; they alias `target`'s when it is set, and `alias` (when set)
// names a second module that shares them (the top-level heads that alias the decoder's own copies).
struct HeadNames {
  Scope module;
  Scope target;
  Scope alias;
  HeadNames layer(std::int64_t k) const {
    auto sub = [k](const Scope& s) { return s.empty() ? Scope() : s / "layers" / k; };
    return {sub(module), sub(target), sub(alias)};
  }
};

Value head_linear(GraphBuilder& b, const Value& x, const std::string& name, const HeadNames& names, std::int64_t in,
                  std::int64_t out, const std::string& activation, NodeType type = NodeType::Linear) {
  Shape shape = x.shape;
  shape.back() = out;
  auto node = b.node(type, name, shape, {x}, names.module);
  b.at(node).activation = activation;
  if (names.target.empty()) {
    linear_tensors(b, node, names.module, in, out, true);
  } else {
    b.tied(node, names.module("weight"), {out, in}, names.target("weight"), graph::TensorRole::Linear);
    b.tied(node, names.module("bias"), {out}, names.target("bias"), graph::TensorRole::Bias);
  }
  if (!names.alias.empty()) {
    b.tied(node, names.alias("weight"), {out, in}, names.module("weight"), graph::TensorRole::Linear);
    b.tied(node, names.alias("bias"), {out}, names.module("bias"), graph::TensorRole::Bias);
  }
  return node;
}

// DeformableDetrMLPPredictionHead (the box head): three Linear layers, ReLU between them, then a sigmoid.
Value box_head(GraphBuilder& b, const Value& x, const std::string& name, const HeadNames& names, std::int64_t d) {
  auto h = head_linear(b, x, name + "_MLP_1", names.layer(0), d, d, "relu");
  h = head_linear(b, h, name + "_MLP_2", names.layer(1), d, d, "relu");
  return head_linear(b, h, name + "_Predictor", names.layer(2), d, 4, "sigmoid");
}

}  // namespace
}  // namespace deformable_detr_common_impl
using namespace deformable_detr_common_impl;

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const deformable_detr_common_impl::Dims d = deformable_detr_common_impl::read_dims(c, layout);
  const bool detection = in.class_name.ends_with("ForObjectDetection");
  const Scope model = detection ? Scope("model") : Scope();
  const std::int64_t image = in.image_size(kDefaultImageSize);

  // DeformableDetrConfig asks timm for stages 2-4 (strides 8, 16, 32) when there are several levels, else stage 4.
  const detr::Backbone bb = detr::backbone(c, b, image, model,
                                           d.levels > 1 ? std::vector<std::int64_t>{2, 3, 4} : std::vector<std::int64_t>{4},
                                           layout.backbone);
  const deformable_detr_common_impl::Levels levels = deformable_detr_common_impl::input_levels(b, bb, d, model);
  const Value pos = deformable_detr_common_impl::level_positions(b, c, levels, d, model, layout);
  const Value memory = deformable_detr_common_impl::encoder(b, d, levels.tokens, pos, model / "encoder");

  // The decoder's queries: positions and content from query_position_embeddings [queries, 2 d_model] split in
  // two, reference points from the positions; or, two-stage, from the top-scoring encoder tokens: enc_output and
  // its norm give each token's proposal, pos_trans and its norm turn the sine embedding of the chosen boxes into
  // positions and content.
  const Scope decoder_scope = model / "decoder";
  // DeformableDetrForObjectDetection keeps decoder_layers class and box heads (one more in the two-stage variant,
  // for the proposals). transformers 5.24 ties them all to the first (_tied_weights_keys), except where the
  // decoder holds its own copies: the box heads with box refinement, the class heads in the two-stage variant; the
  // top-level names then alias the decoder's.
  const Scope class_top("class_embed"), box_top("bbox_embed");
  auto class_names = [&](std::int64_t k) -> deformable_detr_common_impl::HeadNames {
    if (d.two_stage) return {decoder_scope / "class_embed" / k, Scope(), class_top / k};
    return {class_top / k, k == 0 ? Scope() : class_top / 0, Scope()};
  };
  auto box_names = [&](std::int64_t k, bool in_decoder) -> deformable_detr_common_impl::HeadNames {
    if (d.box_refine)
      return in_decoder ? deformable_detr_common_impl::HeadNames{decoder_scope / "bbox_embed" / k, Scope(), Scope()}
                        : deformable_detr_common_impl::HeadNames{box_top / k, decoder_scope / "bbox_embed" / k, Scope()};
    return {box_top / k, k == 0 ? Scope() : box_top / 0, Scope()};
  };
  Value query_pos;
  std::optional<Value> content;  // the content half, when it is not query_pos's own
  if (d.two_stage) {
    auto proposals = dense(b, memory, "Encoder_Output_Projection", model / "enc_output", d.d, d.d, true);
    proposals = norm(b, proposals, "Encoder_Output_LayerNorm", {model / "enc_output_norm"});
    if (detection) {
      // The last class and box heads score every encoder token and refine its proposal box.
      deformable_detr_common_impl::head_linear(b, proposals, "Proposal_Class_Logits", class_names(d.decoder_layers), d.d, in.num_labels(), "",
                  NodeType::Classifier);
      deformable_detr_common_impl::HeadNames box = box_names(d.decoder_layers, true);
      if (d.box_refine) box.alias = box_top / d.decoder_layers;
      deformable_detr_common_impl::box_head(b, proposals, "Proposal_Box", box, d.d);
    }
    auto sine = b.node(NodeType::LearnedPosEmbed, "Proposal_Sine_Embedding", {d.queries, 2 * d.d}, {proposals});
    auto trans = dense(b, sine, "Proposal_Position_Projection", model / "pos_trans", 2 * d.d, 2 * d.d, true);
    query_pos = norm(b, trans, "Proposal_Position_LayerNorm", {model / "pos_trans_norm"});
    if (layout.pixel_queries) {
      // DETA: the content half plus pix_trans_norm(pix_trans(the chosen tokens' proposal features)).
      auto chosen = b.node(NodeType::Add, "Top_Proposal_Features", {d.queries, d.d}, {proposals});
      auto pix = dense(b, chosen, "Proposal_Feature_Projection", model / "pix_trans", d.d, d.d, true);
      pix = norm(b, pix, "Proposal_Feature_LayerNorm", {model / "pix_trans_norm"});
      content = add(b, Value{query_pos.node, {d.queries, d.d}}, pix, "Decoder_Query_Content_Add");
    }
  } else {
    const Scope table = model / "query_position_embeddings";
    query_pos = b.node(NodeType::Embedding, "Query_Position_Embeddings", {d.queries, 2 * d.d}, {memory}, table);
    b.parameter(query_pos, table("weight"), {d.queries, 2 * d.d}, graph::TensorRole::Embedding);
    query_pos = Value{query_pos.node, {d.queries, d.d}};
    dense(b, query_pos, "Reference_Points", model / "reference_points", d.d, 2, true, "sigmoid");
  }
  const Value pos_half{query_pos.node, {d.queries, d.d}};

  Value x = content ? *content : pos_half;  // the content half of the same tensor
  std::vector<Value> layer_outputs;
  const int first = b.next_block();
  for (std::int64_t i = 0; i < d.decoder_layers; ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope l = decoder_scope / "layers" / i;
    const BlockNames n{i};
    const std::string p = "Decoder_";
    auto q_in = add(b, x, pos_half, p + n.attention() + "_Pos_Add");
    auto self = attention(b, q_in, p + n.attention(),
                          AttentionSpec{.hidden = d.d, .heads = d.decoder_heads, .module = l / "self_attn",
                                        .q = l / "self_attn" / "q_proj", .k = l / "self_attn" / "k_proj",
                                        .v = l / "self_attn" / "v_proj", .o = l / "self_attn" / "out_proj",
                                        .dropout = d.attention_dropout, .output_dropout = d.dropout});
    x = norm(b, add(b, self, x, p + n.add(1)), p + n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    // Two-stage queries start from boxes; with box refinement every layer after the first gets the boxes the
    // layer before predicted.
    const int coords = d.two_stage || (d.box_refine && i > 0) ? 4 : 2;
    auto cross = deformable_attention(b, add(b, x, pos_half, fmt::format("Decoder_Cross_Attention_{}_Pos_Add", i)),
                                      memory, fmt::format("Decoder_Cross_Attention_{}", i),
                                      deformable_detr_common_impl::sampling(d, d.decoder_heads, d.decoder_points, l / "encoder_attn", coords));
    x = norm(b, add(b, cross, x, p + n.add(2)), p + n.norm(2, NormKind::LayerNorm), {l / "encoder_attn_layer_norm"});
    auto f = feed_forward(b, x, p + n.ffn(), deformable_detr_common_impl::ffn(d, l, d.decoder_ffn));
    x = norm(b, add(b, f, x, p + n.add(3)), p + n.norm(3, NormKind::LayerNorm), {l / "final_layer_norm"});
    // Box refinement: decoder.bbox_embed[i] predicts the next layer's reference boxes.
    if (detection && d.box_refine) deformable_detr_common_impl::box_head(b, x, fmt::format("Decoder_Box_Refine_{}", i), box_names(i, true), d.d);
    layer_outputs.push_back(x);
  }
  b.set_block(-1);
  if (!detection) return x;

  // DeformableDetrForObjectDetection runs class_embed[i] and bbox_embed[i] on every decoder layer's output.
  Value logits;
  for (std::int64_t i = 0; i < d.decoder_layers; ++i) {
    const Value& h = layer_outputs[static_cast<std::size_t>(i)];
    logits = deformable_detr_common_impl::head_linear(b, h, fmt::format("Class_Logits_{}", i), class_names(i), d.d, in.num_labels(), "",
                         NodeType::Classifier);
    deformable_detr_common_impl::box_head(b, h, fmt::format("Box_{}", i), box_names(i, false), d.d);
  }
  return logits;
}

}  // namespace neurarch::families::deformable_detr
