#include "families/detr_common.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/resnet_common.hpp"

namespace neurarch::families::detr {
namespace detr_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// DetrConvEncoder freezes a ResNet backbone's parameters whose names (relative to the backbone) contain
// none of `trained`: timm's stem and layer1, and, for HF's ResNetBackbone, everything, since its
// "encoder.stages.N" names never contain the "stage.N" the reference looks for. Batch norms are frozen
// buffers already.
void freeze_like_reference(GraphBuilder& b, const Scope& root, const std::vector<std::string>& trained) {
  const std::string prefix = root.path() + ".";
  b.freeze_if([&](std::string_view name) {
    const auto at = name.find(prefix);
    if (at == std::string_view::npos) return false;
    const std::string_view relative = name.substr(at + prefix.size());
    return std::none_of(trained.begin(), trained.end(),
                        [&](std::string_view marker) { return relative.find(marker) != std::string_view::npos; });
  });
}

// timm.create_model(backbone, features_only=True, out_indices, in_chans, output_stride): DetrConfig fills
// backbone_kwargs with out_indices (1, 2, 3, 4), in_chans = num_channels and, with dilation, output_stride 16.
Backbone timm_backbone(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& root,
                       const std::vector<std::int64_t>& default_indices) {
  const std::string name = c.text({"backbone"}, "resnet50");
  resnet::TimmConfig t = resnet::timm_layout(c, "backbone", name);
  const Config kwargs = c.child("backbone_kwargs");
  t.channels = kwargs.has("in_chans") ? kwargs.dim({"in_chans"}) : c.dim({"num_channels"}, 3);
  const bool dilation = c.flag({"dilation"}, false);
  t.output_stride = kwargs.has("output_stride") ? kwargs.dim({"output_stride"}) : dilation ? 16 : 32;
  if (t.output_stride != 8 && t.output_stride != 16 && t.output_stride != 32)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'output_stride'", kwargs.origin()),
                fmt::format("timm's ResNet takes an output_stride of 8, 16 or 32, not {}", t.output_stride));
  std::vector<std::int64_t> indices = default_indices;
  if (const auto* v = kwargs.raw({"out_indices"})) {
    const std::string where = fmt::format("{}: key 'out_indices'", kwargs.origin());
    if (!v->is_array() || v->empty() || v->size() > 5)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of stage indices, found {}", v->dump()));
    indices.clear();
    for (const auto& e : *v) {
      if (!e.is_number_integer() || e.get<std::int64_t>() < 0 || e.get<std::int64_t>() > 4)
        throw Error(ErrorKind::InvalidInput, where, fmt::format("expected indices 0..4, found {}", e.dump()));
      indices.push_back(e.get<std::int64_t>());
    }
  }
  // FeatureListNet returns the maps in module order whatever order out_indices lists them in.
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  t.last_stage = indices.back();

  auto pixels = b.input({t.channels, image, image}, "pixels");
  const auto trunk = resnet::timm_trunk(b, pixels, t, root, resnet::Norm::Frozen);
  if (name.find("resnet") != std::string::npos) freeze_like_reference(b, root, {"layer2", "layer3", "layer4"});
  Backbone out;
  for (auto i : indices) {
    out.maps.push_back(trunk.stages[static_cast<std::size_t>(i)]);
    out.channels.push_back(trunk.channels[static_cast<std::size_t>(i)]);
  }
  return out;
}

// load_backbone(config): HF's ResNetBackbone from backbone_config (DetrConfig's default: ResNetConfig with
// out_features ["stage4"]). Only ResNet configs are modelled.
Backbone hf_backbone(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& root,
                     const std::vector<std::string>& trained) {
  const Config bc = c.child("backbone_config");
  if (!c.has("backbone_config") || c.raw({"backbone_config"})->is_null()) {
    const std::string named = c.raw({"backbone"}) && c.raw({"backbone"})->is_string() ? c.text({"backbone"}) : "";
    if (!named.empty() && named != "resnet50")
      throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                  fmt::format("use_timm_backbone is false, so '{}' is a Hub checkpoint whose config is not in this "
                              "file; give backbone_config instead",
                              named));
  } else if (const std::string type = bc.text({"model_type"}, ""); type != "resnet") {
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'model_type'", bc.origin()),
                fmt::format("only ResNet backbones are modelled, not '{}'", type));
  }
  const resnet::HfConfig cfg = resnet::read_hf_config(bc);
  // stage_names = ["stem", "stage1", ...]; out_features wins over out_indices; the default is the last stage.
  std::vector<std::size_t> indices;
  const std::size_t stages = cfg.hidden.size();
  const std::string where = fmt::format("{}: key 'out_features'", bc.origin());
  if (const auto* v = bc.raw({"out_features"}); v && !v->is_null()) {
    if (!v->is_array() || v->empty() || v->size() > stages + 1)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of stage names, found {}", v->dump()));
    for (const auto& e : *v) {
      const std::string s = e.is_string() ? e.get<std::string>() : "";
      std::size_t i = stages + 1;
      if (s == "stem") i = 0;
      else if (s.starts_with("stage") && s.size() > 5 && s.size() < 8 && std::all_of(s.begin() + 5, s.end(), ::isdigit))
        i = static_cast<std::size_t>(std::stoi(s.substr(5)));
      if (i > stages) throw Error(ErrorKind::InvalidInput, where, fmt::format("no stage named {}", e.dump()));
      indices.push_back(i);
    }
  } else if (const auto* o = bc.raw({"out_indices"}); o && !o->is_null()) {
    if (!o->is_array() || o->empty() || o->size() > stages + 1)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of stage indices, found {}", o->dump()));
    for (const auto& e : *o) {
      if (!e.is_number_integer() || e.get<std::int64_t>() < 0 || e.get<std::size_t>() > stages)
        throw Error(ErrorKind::InvalidInput, where, fmt::format("expected indices 0..{}, found {}", stages, e.dump()));
      indices.push_back(e.get<std::size_t>());
    }
  } else {
    indices.push_back(stages);
  }

  auto pixels = b.input({cfg.channels, image, image}, "pixels");
  const auto trunk = resnet::hf_trunk(b, pixels, cfg, root, resnet::Norm::Frozen);
  freeze_like_reference(b, root, trained);  // only ResNet gets here
  Backbone out;
  for (auto i : indices) {
    out.maps.push_back(trunk.stages[i]);
    out.channels.push_back(trunk.channels[i]);
  }
  return out;
}

struct Dims {
  std::int64_t d = 256;
  std::int64_t encoder_layers = 6, decoder_layers = 6;
  std::int64_t encoder_heads = 8, decoder_heads = 8;
  std::int64_t encoder_ffn = 2048, decoder_ffn = 2048;
  double dropout = 0.1, attention_dropout = 0.0, activation_dropout = 0.0;
  std::string activation = "relu";
  std::int64_t queries = 100;
  bool auxiliary_loss = false;
};

Dims read_dims(const Config& c, const Layout& layout) {
  Dims d;
  d.d = c.dim({"d_model"}, 256);
  d.encoder_layers = c.dim({"encoder_layers"}, 6);
  d.decoder_layers = c.dim({"decoder_layers"}, 6);
  d.encoder_heads = c.dim({"encoder_attention_heads"}, 8);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 8);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, 2048);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, 2048);
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.activation = c.text({"activation_function"}, "relu");
  d.queries = c.dim({"num_queries"}, layout.default_queries);
  d.auxiliary_loss = c.flag({"auxiliary_loss"}, false);
  return d;
}

class Transformer {
 public:
  Transformer(GraphBuilder& b, const Dims& d, const Layout& layout) : b_(b), d_(d), layout_(layout) {}

  // DetrAttention: q and k read x + positions, v reads x; eager only.
  Value self_attention(const Value& x, const Value& pos, const Scope& module, std::int64_t heads,
                       const std::string& name, bool add_positions) {
    Value q_in = add_positions ? add(b_, x, pos, name + "_Pos_Add") : x;
    auto attn = attention(b_, q_in, name, spec(module, heads));
    b_.at(attn).attention->sdpa = false;
    return attn;
  }

  Value cross(const Value& x, const Value& query_pos, const Value& memory, const Scope& module,
              const std::string& name) {
    auto q_in = add(b_, x, query_pos, name + "_Pos_Add");
    auto attn = cross_attention(b_, q_in, memory, name, spec(module, d_.decoder_heads));
    b_.at(attn).attention->sdpa = false;
    return attn;
  }

  FeedForwardSpec ffn(const Scope& layer, std::int64_t width) const {
    return FeedForwardSpec{.hidden = d_.d, .intermediate = width, .activation = d_.activation, .module = layer,
                           .up = layer / "fc1", .down = layer / "fc2", .output_dropout = d_.dropout,
                           .inner_dropout = d_.activation_dropout};
  }

  /// Post-norm: norm(x + f(x)); pre-norm: x + f(norm(x)).
  template <typename F>
  Value sublayer(const Value& x, const std::string& norm_name, const Scope& norm_module, F&& f,
                 const std::string& add_name) {
    if (layout_.pre_norm) return add(b_, f(norm(b_, x, norm_name, {norm_module})), x, add_name);
    return norm(b_, add(b_, f(x), x, add_name), norm_name, {norm_module});
  }

  Value encoder(Value x, const Value& pos, const Scope& stack, int first_block) {
    for (std::int64_t i = 0; i < d_.encoder_layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      x = sublayer(x, n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) { return self_attention(h, pos, l / "self_attn", d_.encoder_heads, n.attention(), true); },
                   n.add(1));
      x = sublayer(x, n.norm(2, NormKind::LayerNorm), l / "final_layer_norm",
                   [&](const Value& h) { return feed_forward(b_, h, n.ffn(), ffn(l, d_.encoder_ffn)); }, n.add(2));
    }
    b_.set_block(-1);
    if (layout_.encoder_final_norm) x = norm(b_, x, "Encoder_Final_LayerNorm", {stack / "layernorm"});
    return x;
  }

  // The decoder's input is zeros_like(query positions): layer 0's queries and keys are the positions
  // themselves, so the stream starts at the query-position node.
  Value decoder(const Value& query_pos, const Value& memory, const Scope& stack, int first_block) {
    Value x = query_pos;
    const Scope final_norm = stack / "layernorm";
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      const std::string p = "Decoder_";
      x = sublayer(x, p + n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) {
                     return self_attention(h, query_pos, l / "self_attn", d_.decoder_heads, p + n.attention(), i > 0);
                   },
                   p + n.add(1));
      x = sublayer(x, p + n.norm(2, NormKind::LayerNorm), l / "encoder_attn_layer_norm",
                   [&](const Value& h) {
                     return cross(h, query_pos, memory, l / "encoder_attn", fmt::format("Decoder_Cross_Attention_{}", i));
                   },
                   p + n.add(2));
      x = sublayer(x, p + n.norm(3, NormKind::LayerNorm), l / "final_layer_norm",
                   [&](const Value& h) { return feed_forward(b_, h, p + n.ffn(), ffn(l, d_.decoder_ffn)); },
                   p + n.add(3));
      // auxiliary_loss: decoder.layernorm runs after every layer and its output feeds the next one.
      if (d_.auxiliary_loss && i + 1 < d_.decoder_layers) x = aux_norm(x, final_norm, i);
    }
    b_.set_block(-1);
    return norm(b_, x, "Decoder_Final_LayerNorm", {final_norm});
  }

  // ConditionalDetrDecoder: reference points from the query positions (ref_point_head, sigmoid) give a
  // sine embedding that every layer's cross-attention concatenates to its queries, scaled by
  // query_scale(hidden) from layer 1 on; keys concatenate ca_kpos_proj of the spatial positions. Only
  // layer 0 keeps ca_qpos_proj (the reference sets the others to None).
  Value conditional_decoder(const Value& query_pos, const Value& memory, const Scope& stack, int first_block) {
    const Scope final_norm = stack / "layernorm";
    const Scope ref_head = stack / "ref_point_head" / "layers";
    auto ref = dense(b_, query_pos, "Reference_Point_MLP_1", ref_head / 0, d_.d, d_.d, true, "relu");
    ref = dense(b_, ref, "Reference_Point_MLP_2", ref_head / 1, d_.d, 2, true, "sigmoid");
    auto sine = b_.node(NodeType::LearnedPosEmbed, "Reference_Point_Sine_Embedding", {d_.queries, d_.d}, {ref});
    const Scope scale = stack / "query_scale" / "layers";
    Value x = query_pos;
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      const std::string p = "Decoder_";
      Value sine_i = sine;
      if (i > 0) {  // pos_transformation = query_scale(hidden_states); layer 1 owns the MLP, later layers reuse it
        auto s1 = scale_linear(x, fmt::format("Query_Scale_{}_1", i), scale / 0, i == 1, "relu");
        sine_i = scale_linear(s1, fmt::format("Query_Scale_{}_2", i), scale / 1, i == 1, "");
      }
      x = sublayer(x, p + n.norm(1, NormKind::LayerNorm), l / "self_attn_layer_norm",
                   [&](const Value& h) {
                     auto attn = conditional_attention(h, query_pos, -1, d_.queries, l / "self_attn", p + n.attention());
                     for (const char* proj : {"sa_qcontent_proj", "sa_kcontent_proj", "sa_v_proj"})
                       linear_tensors(b_, attn, l / proj, d_.d, d_.d, true);
                     for (const char* proj : {"sa_qpos_proj", "sa_kpos_proj"})
                       linear_tensors(b_, attn, l / proj, d_.d, d_.d, true, graph::Operand::Positions);
                     linear_tensors(b_, attn, l / "self_attn" / "out_proj", d_.d, d_.d, true, graph::Operand::Inner);
                     return attn;
                   },
                   p + n.add(1));
      x = sublayer(x, p + n.norm(2, NormKind::LayerNorm), l / "encoder_attn_layer_norm",
                   [&](const Value& h) {
                     auto attn = conditional_attention(h, sine_i, memory.node, memory.shape.front(),
                                                       l / "encoder_attn", fmt::format("Decoder_Cross_Attention_{}", i));
                     // q reads the stream, k and v the encoder memory, the rest positions.
                     linear_tensors(b_, attn, l / "ca_qcontent_proj", d_.d, d_.d, true);
                     for (const char* proj : {"ca_kcontent_proj", "ca_v_proj"})
                       linear_tensors(b_, attn, l / proj, d_.d, d_.d, true, graph::Operand::Memory);
                     linear_tensors(b_, attn, l / "ca_kpos_proj", d_.d, d_.d, true, graph::Operand::Positions);
                     if (i == 0) linear_tensors(b_, attn, l / "ca_qpos_proj", d_.d, d_.d, true, graph::Operand::Positions);
                     linear_tensors(b_, attn, l / "ca_qpos_sine_proj", d_.d, d_.d, true, graph::Operand::Positions);
                     linear_tensors(b_, attn, l / "encoder_attn" / "out_proj", d_.d, d_.d, true, graph::Operand::Inner);
                     return attn;
                   },
                   p + n.add(2));
      x = sublayer(x, p + n.norm(3, NormKind::LayerNorm), l / "final_layer_norm",
                   [&](const Value& h) { return feed_forward(b_, h, p + n.ffn(), ffn(l, d_.decoder_ffn)); },
                   p + n.add(3));
      if (d_.auxiliary_loss && i + 1 < d_.decoder_layers) x = aux_norm(x, final_norm, i);
    }
    b_.set_block(-1);
    auto out = norm(b_, x, "Decoder_Final_LayerNorm", {final_norm});
    if (d_.decoder_layers < 2)  // query_scale exists but only layers after the first run it
      for (std::int64_t k = 0; k < 2; ++k) linear_tensors(b_, out, scale / k, d_.d, d_.d, true);
    return out;
  }

 private:
  Value aux_norm(const Value& x, const Scope& final_norm, std::int64_t i) {
    auto h = b_.node(NodeType::LayerNorm, fmt::format("Decoder_Aux_LayerNorm_{}", i), x.shape, {x}, final_norm);
    b_.tied(h, final_norm("weight"), {d_.d}, final_norm("weight"), graph::TensorRole::Norm);
    b_.tied(h, final_norm("bias"), {d_.d}, final_norm("bias"), graph::TensorRole::Bias);
    return h;
  }

  // One Linear of query_scale: declared by its first user, an alias of those weights afterwards.
  Value scale_linear(const Value& x, const std::string& name, const Scope& module, bool owns,
                     const std::string& activation) {
    auto out = b_.node(NodeType::Linear, name, x.shape, {x}, module);
    b_.at(out).activation = activation;
    if (owns) {
      linear_tensors(b_, out, module, d_.d, d_.d, true);
    } else {
      b_.tied(out, module("weight"), {d_.d, d_.d}, module("weight"), graph::TensorRole::Linear);
      b_.tied(out, module("bias"), {d_.d}, module("bias"), graph::TensorRole::Bias);
    }
    return out;
  }

  // ConditionalDetrAttention (eager only); the caller declares the projections, which live outside it.
  Value conditional_attention(const Value& x, const Value& extra, int kv_input, std::int64_t kv_len,
                              const Scope& module, const std::string& name) {
    auto attn = kv_input >= 0 ? b_.node(NodeType::MultiHeadAttention, name, x.shape,
                                        {x, graph::Value{kv_input, {}}, extra}, module)
                              : b_.node(NodeType::MultiHeadAttention, name, x.shape, {x, extra}, module);
    graph::AttentionAttrs attrs{d_.decoder_heads, d_.decoder_heads, d_.d / d_.decoder_heads, d_.queries, kv_len,
                                false, 0, d_.attention_dropout, false, false};
    attrs.kv_input = kv_input;
    attrs.sdpa = false;
    b_.at(attn).attention = attrs;
    b_.at(attn).dropout = d_.dropout;
    if (d_.d % d_.decoder_heads != 0)
      b_.fail(attn, fmt::format("d_model {} not divisible by {} heads", d_.d, d_.decoder_heads));
    return attn;
  }

  AttentionSpec spec(const Scope& module, std::int64_t heads) const {
    return AttentionSpec{.hidden = d_.d, .heads = heads, .module = module, .q = module / "q_proj",
                         .k = module / "k_proj", .v = module / "v_proj", .o = module / "out_proj",
                         .dropout = d_.attention_dropout, .output_dropout = d_.dropout};
  }

  GraphBuilder& b_;
  const Dims& d_;
  const Layout& layout_;
};

}  // namespace
}  // namespace detr_common_impl
using namespace detr_common_impl;

// DetrMLPPredictionHead: Linear layers with ReLU between them; the box head ends in a sigmoid.
Value mlp_head(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
               std::int64_t hidden, std::int64_t out, std::int64_t layers, const std::string& last_activation) {
  Value h = x;
  std::int64_t width = in;
  for (std::int64_t i = 0; i + 1 < layers; ++i) {
    h = dense(b, h, fmt::format("{}_MLP_{}", name, i + 1), module / "layers" / i, width, hidden, true, "relu");
    width = hidden;
  }
  return dense(b, h, name + "_Predictor", module / "layers" / (layers - 1), width, out, true, last_activation);
}

Backbone backbone(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& model,
                  const std::vector<std::int64_t>& timm_out_indices, const BackboneLayout& layout) {
  Scope root = model;
  for (const auto& part : layout.path) root = root / part;
  return c.flag({"use_timm_backbone"}, layout.timm_default) ? detr_common_impl::timm_backbone(c, b, image, root, timm_out_indices)
                                                            : detr_common_impl::hf_backbone(c, b, image, root, layout.hf_trained);
}

Value decoder(GraphBuilder& b, const Config& c, const Value& query_pos, const Value& memory, const Scope& stack) {
  const Layout layout;
  const detr_common_impl::Dims d = detr_common_impl::read_dims(c, layout);
  detr_common_impl::Transformer t(b, d, layout);
  return t.decoder(query_pos, memory, stack, b.next_block());
}

Value build(const BuildInput& in, GraphBuilder& b, const Layout& layout) {
  const Config& c = in.config;
  const detr_common_impl::Dims d = detr_common_impl::read_dims(c, layout);
  const bool detection = in.class_name.ends_with("ForObjectDetection");
  const Scope heads;
  const Scope model = detection ? Scope("model") : Scope();
  const std::int64_t image = in.image_size(kDefaultImageSize);

  const Backbone bb = backbone(c, b, image, model);
  const Value& feature_map = bb.maps.back();
  auto projected = conv2d(b, feature_map, "Input_Projection",
                          {.module = model / "input_projection", .in = bb.channels.back(), .out = d.d, .kernel = 1});
  b.at(projected).dropout = d.dropout;  // the encoder's dropout on its input
  const std::int64_t h = projected.shape.size() == 3 ? projected.shape[1] : 0;
  const std::int64_t w = projected.shape.size() == 3 ? projected.shape[2] : 0;
  const Value tokens{projected.node, {h * w, d.d}};

  // build_position_encoding: sine (no parameters, from the pixel mask) or learned row/column tables.
  const std::string pos_type = c.text({"position_embedding_type"}, "sine");
  const Scope pos_module = model / "backbone" / "position_embedding";
  auto pos = b.node(NodeType::LearnedPosEmbed, pos_type == "learned" ? "Learned_Position_Embedding"
                                                                       : "Sine_Position_Embedding",
                    {h * w, d.d}, {feature_map}, pos_module);
  if (pos_type == "learned") {
    b.parameter(pos, pos_module("row_embeddings.weight"), {50, d.d / 2}, graph::TensorRole::Embedding);
    b.parameter(pos, pos_module("column_embeddings.weight"), {50, d.d / 2}, graph::TensorRole::Embedding);
    if (h > 50 || w > 50)
      b.fail(pos, fmt::format("the learned row/column tables hold 50 positions; the {}x{} feature map needs more", h, w));
  } else if (pos_type != "sine") {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'position_embedding_type'", c.origin()),
                fmt::format("expected 'sine' or 'learned', found '{}'", pos_type));
  }

  detr_common_impl::Transformer t(b, d, layout);
  auto memory = t.encoder(tokens, pos, model / "encoder", b.next_block());
  auto query_pos = b.node(NodeType::Embedding, "Query_Position_Embeddings", {d.queries, d.d}, {memory},
                          model / "query_position_embeddings");
  b.parameter(query_pos, (model / "query_position_embeddings")("weight"), {d.queries, d.d}, graph::TensorRole::Embedding);
  auto x = layout.conditional ? t.conditional_decoder(query_pos, memory, model / "decoder", b.next_block())
                              : t.decoder(query_pos, memory, model / "decoder", b.next_block());
  if (!detection) return x;

  // With auxiliary_loss the heads also run on every decoder layer's normed output.
  const Value head_input{x.node, {d.queries * (d.auxiliary_loss ? d.decoder_layers : 1), d.d}};
  auto logits = classifier(b, head_input, "Class_Logits", heads / "class_labels_classifier", d.d,
                           in.num_labels() + (layout.no_object_class ? 1 : 0), true);
  mlp_head(b, head_input, "Box", heads / "bbox_predictor", d.d, d.d, 4, 3, "sigmoid");
  return logits;
}

}  // namespace neurarch::families::detr
