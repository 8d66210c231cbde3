// DAB-DETR (models/dab_detr/modeling_dab_detr.py, transformers 5.24.0; the shared fixture is 4.57.6): DETR's
// ResNet backbone with frozen batch norm (timm's, loaded as a TimmBackbone under `_backbone`, or HF's ResNet),
// a 1x1 input_projection and 2-D sine positions; the queries are 4-D anchor boxes (query_refpoint_embeddings)
// instead of learned embeddings. The encoder scales the positions by a query_scale MLP of the stream before
// every layer; the decoder, Conditional DETR's, rebuilds its query positions every layer from the sine of the
// anchors (ref_point_head), scales them by query_scale and by the anchor sizes ref_anchor_head predicts, and
// normalises every layer's output (decoder.layernorm, for the intermediate outputs). Its attentions keep their
// projections outside (q/k of the cross-attention concatenate content and sine halves: twice as wide as v).
// activation_function is PReLU by default: one learned slope per FFN. Attention is eager-only.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/detr_common.hpp"
#include "families/resnet_common.hpp"

namespace neurarch::families {
namespace dab_detr_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct FeatureMap {
  Value map;
  std::int64_t channels = 0;
};

// Timm feature indices (0 the stem, 1..4 the stages, negatives from the end) -> the last one kept.
std::int64_t last_timm_index(const Config& c, const char* key, std::int64_t fallback) {
  const auto* v = c.raw({key});
  if (!v || v->is_null()) return fallback;
  const std::string where = fmt::format("{}: key '{}'", c.origin(), key);
  if (!v->is_array() || v->empty())
    throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of feature indices, found {}", v->dump()));
  std::int64_t last = 0;
  for (const auto& e : *v) {
    std::int64_t i = e.is_number_integer() ? e.get<std::int64_t>() : 99;
    if (i < 0) i += 5;
    if (i < 0 || i > 4) throw Error(ErrorKind::InvalidInput, where, fmt::format("no feature index {}", e.dump()));
    last = std::max(last, i);
  }
  return last;
}

FeatureMap timm_resnet(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& root, const char* name_key,
                       std::int64_t channels, std::int64_t output_stride, std::int64_t last_stage) {
  resnet::TimmConfig t = resnet::timm_layout(c, name_key, c.text({name_key}, "resnet50"));
  t.channels = channels;
  t.output_stride = output_stride;
  t.last_stage = last_stage;
  if (t.output_stride != 8 && t.output_stride != 16 && t.output_stride != 32)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'output_stride'", c.origin()),
                fmt::format("timm's ResNet takes an output_stride of 8, 16 or 32, not {}", t.output_stride));
  auto pixels = b.input({t.channels, image, image}, "pixels");
  const auto trunk = resnet::timm_trunk(b, pixels, t, root / "_backbone", resnet::Norm::Frozen);
  const auto i = static_cast<std::size_t>(last_stage);
  return {trunk.stages[i], trunk.channels[i]};
}

// HF's ResNetBackbone; DabDetrConfig's default sub-config keeps out_features ["stage4"]. The feature maps come in
// stage order, so the last one is the deepest stage asked for.
FeatureMap hf_resnet(const Config& bc, GraphBuilder& b, std::int64_t image, const Scope& root) {
  const resnet::HfConfig cfg = resnet::read_hf_config(bc);
  const std::size_t stages = cfg.hidden.size();
  std::size_t last = stages;
  if (const auto* v = bc.raw({"out_features"}); v && !v->is_null()) {
    const std::string where = fmt::format("{}: key 'out_features'", bc.origin());
    if (!v->is_array() || v->empty())
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a list of stage names, found {}", v->dump()));
    last = 0;
    for (const auto& e : *v) {
      const std::string s = e.is_string() ? e.get<std::string>() : "";
      std::size_t i = stages + 1;
      if (s == "stem") i = 0;
      else if (s.size() == 6 && s.starts_with("stage") && std::isdigit(static_cast<unsigned char>(s[5])))
        i = static_cast<std::size_t>(s[5] - '0');
      if (i > stages) throw Error(ErrorKind::InvalidInput, where, fmt::format("no stage named {}", e.dump()));
      last = std::max(last, i);
    }
  }
  auto pixels = b.input({cfg.channels, image, image}, "pixels");
  const auto trunk = resnet::hf_trunk(b, pixels, cfg, root, resnet::Norm::Frozen);
  return {trunk.stages[last], trunk.channels[last]};
}

// DabDetrConvEncoder's `model` (load_backbone): backbone_config names a TimmBackbone or HF's ResNet (5.x
// configs); without one the 4.x keys use_timm_backbone / backbone / backbone_kwargs / dilation say the same.
// The reference freezes nothing but the batch norms.
FeatureMap backbone(const Config& c, GraphBuilder& b, std::int64_t image, const Scope& model) {
  const Scope root = model / "backbone" / "conv_encoder" / "model";
  const bool dilation = c.flag({"dilation"}, false);
  if (const auto* sub = c.raw({"backbone_config"}); sub && !sub->is_null()) {
    const Config bc = c.child("backbone_config");
    const std::string type = bc.text({"model_type"}, "");
    if (type == "timm_backbone") {
      const auto* stride = bc.raw({"output_stride"});
      const std::int64_t output_stride = stride && !stride->is_null() ? bc.dim({"output_stride"}) : dilation ? 16 : 32;
      return timm_resnet(bc, b, image, root, "backbone", bc.dim({"num_channels"}, 3), output_stride,
                         last_timm_index(bc, "out_indices", 4));
    }
    if (type != "resnet")
      throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'model_type'", bc.origin()),
                  fmt::format("only ResNet backbones (timm's or HF's) are modelled, not '{}'", type));
    return hf_resnet(bc, b, image, root);
  }
  if (!c.flag({"use_timm_backbone"}, true)) return hf_resnet(c.child("backbone_config"), b, image, root);
  const Config kwargs = c.child("backbone_kwargs");
  const std::int64_t channels = kwargs.has("in_chans") ? kwargs.dim({"in_chans"}) : c.dim({"num_channels"}, 3);
  const std::int64_t output_stride = kwargs.has("output_stride") ? kwargs.dim({"output_stride"}) : dilation ? 16 : 32;
  return timm_resnet(c, b, image, root, "backbone", channels, output_stride, last_timm_index(kwargs, "out_indices", 4));
}

struct Dims {
  std::int64_t d = 256;
  std::int64_t encoder_layers = 6, decoder_layers = 6;
  std::int64_t encoder_heads = 8, decoder_heads = 8;
  std::int64_t encoder_ffn = 2048, decoder_ffn = 2048;
  double dropout = 0.1, attention_dropout = 0.0, activation_dropout = 0.0;
  std::string activation = "prelu";
  std::int64_t queries = 300;  ///< num_queries x max(num_patterns, 1) decoder queries
  std::int64_t query_dim = 4;
  bool keep_query_pos = false;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.d = c.dim({"hidden_size"}, 256);
  // attribute_map: num_hidden_layers and num_attention_heads name the encoder's, and win when both are given.
  d.encoder_layers = c.dim({"num_hidden_layers", "encoder_layers"}, 6);
  d.decoder_layers = c.dim({"decoder_layers"}, 6);
  d.encoder_heads = c.dim({"num_attention_heads", "encoder_attention_heads"}, 8);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 8);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, 2048);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, 2048);
  d.dropout = c.number({"dropout"}, 0.1);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.activation = c.text({"activation_function"}, "prelu");
  d.query_dim = c.dim({"query_dim"}, 4);
  if (d.query_dim != 4)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'query_dim'", c.origin()),
                fmt::format("DAB-DETR's anchors are 4-D boxes; query_dim must be 4, not {}", d.query_dim));
  d.keep_query_pos = c.flag({"keep_query_pos"}, false);
  // The reference warns and uses 0 for a num_patterns that is not an int.
  const auto* patterns_value = c.raw({"num_patterns"});
  const std::int64_t patterns =
      patterns_value && patterns_value->is_number_integer() ? c.integer({"num_patterns"}, 0) : 0;
  d.queries = c.dim({"num_queries"}, 300) * std::max<std::int64_t>(patterns, 1);
  return d;
}

class Transformer {
 public:
  Transformer(GraphBuilder& b, const Dims& d) : b_(b), d_(d) {}

  // DabDetrMLP: Linear layers with ReLU between them. Declared by its first caller (`owns`); later calls reuse the
  // module's tensors, or those of `alias` (a module tied to it).
  Value mlp(const Value& x, const std::string& name, const Scope& module, std::int64_t in, std::int64_t hidden,
            std::int64_t out, std::int64_t layers, bool owns, const std::string& last_activation = "",
            const Scope& alias = Scope()) {
    Value h = x;
    std::int64_t width = in;
    for (std::int64_t i = 0; i < layers; ++i) {
      const bool last = i + 1 == layers;
      const std::int64_t to = last ? out : hidden;
      const Scope l = module / "layers" / i;
      Shape shape = h.shape;
      shape.back() = to;
      auto y = b_.node(NodeType::Linear, fmt::format("{}_{}", name, i + 1), shape, {h}, l);
      b_.at(y).activation = last ? last_activation : "relu";
      if (owns) {
        linear_tensors(b_, y, l, width, to, true);
      } else {
        const Scope target = alias.empty() ? l : alias / "layers" / i;
        b_.tied(y, l("weight"), {to, width}, target("weight"), graph::TensorRole::Linear);
        b_.tied(y, l("bias"), {to}, target("bias"), graph::TensorRole::Bias);
      }
      h = y;
      width = to;
    }
    return h;
  }

  // An elementwise product of two same-shaped streams (positions times a learned scale): the memory of a binary op.
  Value product(const Value& x, const Value& y, const std::string& name) {
    return b_.node(NodeType::Add, name, x.shape, {x, y});
  }

  // fc1 -> activation -> fc2; a PReLU owns one learned slope under activation_fn.
  Value ffn(const Value& x, const std::string& name, const Scope& module, std::int64_t width, double inner_dropout) {
    auto out = feed_forward(b_, x, name,
                            FeedForwardSpec{.hidden = d_.d, .intermediate = width, .activation = d_.activation,
                                            .module = module, .up = module / "fc1", .down = module / "fc2",
                                            .output_dropout = d_.dropout, .inner_dropout = inner_dropout});
    if (d_.activation == "prelu") b_.parameter(out, (module / "activation_fn")("weight"), {1}, graph::TensorRole::Other);
    return out;
  }

  // DabDetrEncoder: before every layer the positions are scaled by query_scale(stream); DetrAttention adds them to
  // q and k; post-norm layers; encoder.norm after the last one with normalize_before.
  Value encoder(Value x, const Value& pos, const Scope& stack, bool final_norm) {
    const int first = b_.next_block();
    for (std::int64_t i = 0; i < d_.encoder_layers; ++i) {
      b_.set_block(first + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      auto scale = mlp(x, fmt::format("Encoder_Query_Scale_{}", i), stack / "query_scale", d_.d, d_.d, d_.d, 2, i == 0);
      auto scaled = product(pos, scale, fmt::format("Encoder_Scaled_Positions_{}", i));
      auto q_in = add(b_, x, scaled, n.attention() + "_Pos_Add");
      const Scope a = l / "self_attn";
      auto attn = attention(b_, q_in, n.attention(),
                            AttentionSpec{.hidden = d_.d, .heads = d_.encoder_heads, .module = a, .q = a / "q_proj",
                                          .k = a / "k_proj", .v = a / "v_proj", .o = a / "out_proj",
                                          .dropout = d_.attention_dropout, .softmax_fp32 = true});
      b_.at(attn).attention->sdpa = false;
      b_.at(attn).dropout = d_.dropout;
      x = norm(b_, add(b_, attn, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
      auto f = ffn(x, n.ffn(), l, d_.encoder_ffn, d_.dropout);
      x = norm(b_, add(b_, f, x, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
    }
    b_.set_block(-1);
    if (final_norm) x = norm(b_, x, "Encoder_Final_LayerNorm", {stack / "norm"});
    return x;
  }

  // DabDetrDecoder. The stream starts at zeros (or the pattern embeddings); `anchors` are the [queries, 4] boxes.
  // With `box_head` (ForObjectDetection's decoder.bbox_embed, iterative refinement) every layer refines them.
  Value decoder(const Value& start, const Value& anchors, const Value& memory, const Value& spatial_pos,
                const Scope& stack, const Scope& box_head, const Scope& box_alias) {
    const int first = b_.next_block();
    const std::int64_t q = d_.queries, half_sine = d_.query_dim / 2 * d_.d;
    Value x = start;
    Value boxes = anchors;
    const Scope final_norm = stack / "layernorm";
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(first + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      const std::string p = "Decoder_";
      // Sine embedding of the anchors (hidden/2 features per coordinate), then the query positions.
      auto sine =
          b_.node(NodeType::LearnedPosEmbed, fmt::format("Anchor_Sine_Embedding_{}", i), {q, half_sine}, {boxes});
      auto query_pos = mlp(sine, fmt::format("Reference_Point_MLP_{}", i), stack / "ref_point_head", half_sine, d_.d,
                           d_.d, 2, i == 0);
      Value sine_q{sine.node, {q, d_.d}};  // query_sine_embed[..., :hidden]
      if (i > 0) {
        auto scale = mlp(x, fmt::format("Query_Scale_{}", i), stack / "query_scale", d_.d, d_.d, d_.d, 2, i == 1);
        sine_q = product(sine_q, scale, fmt::format("Scaled_Sine_Embedding_{}", i));
      }
      auto anchor_size = mlp(x, fmt::format("Reference_Anchor_MLP_{}", i), stack / "ref_anchor_head", d_.d, d_.d, 2, 2,
                             i == 0, "sigmoid");
      sine_q = product(sine_q, anchor_size, fmt::format("Anchor_Sized_Sine_Embedding_{}", i));

      // Self-attention: q = content + position, k = content + position, v = content.
      const Scope sa = l / "self_attn";
      auto q_sa = add(b_, linear(x, sa / "self_attn_query_content_proj", p + n.attention() + "_Q_Content"),
                      linear(query_pos, sa / "self_attn_query_pos_proj", p + n.attention() + "_Q_Pos"),
                      p + n.attention() + "_Q");
      auto k_sa = add(b_, linear(x, sa / "self_attn_key_content_proj", p + n.attention() + "_K_Content"),
                      linear(query_pos, sa / "self_attn_key_pos_proj", p + n.attention() + "_K_Pos"),
                      p + n.attention() + "_K");
      auto v_sa = linear(x, sa / "self_attn_value_proj", p + n.attention() + "_V");
      auto attn = projected_attention(q_sa, k_sa, v_sa, d_.d, false, sa / "self_attn", p + n.attention());
      x = norm(b_, add(b_, attn, x, p + n.add(1)), p + n.norm(1, NormKind::LayerNorm), {sa / "self_attn_layer_norm"});

      // Cross-attention: [content (+ position on layer 0 or with keep_query_pos) | sine] queries against
      // [content (+ position) | position] keys of the encoder memory.
      const Scope ca = l / "cross_attn";
      const std::string cn = fmt::format("Decoder_Cross_Attention_{}", i);
      Value q_ca = linear(x, ca / "cross_attn_query_content_proj", cn + "_Q_Content");
      Value k_ca = linear(memory, ca / "cross_attn_key_content_proj", cn + "_K_Content");
      auto v_ca = linear(memory, ca / "cross_attn_value_proj", cn + "_V");
      auto k_pos = linear(spatial_pos, ca / "cross_attn_key_pos_proj", cn + "_K_Pos");
      if (i == 0 || d_.keep_query_pos) {
        q_ca = add(b_, q_ca, linear(query_pos, ca / "cross_attn_query_pos_proj", cn + "_Q_Pos"), cn + "_Q_Pos_Add");
        k_ca = add(b_, k_ca, k_pos, cn + "_K_Pos_Add");
      }
      auto q_sine = linear(sine_q, ca / "cross_attn_query_pos_sine_proj", cn + "_Q_Sine");
      auto q_cat = b_.node(NodeType::Add, cn + "_Q_Concat", {q, 2 * d_.d}, {q_ca, q_sine});
      auto k_cat = b_.node(NodeType::Add, cn + "_K_Concat", {k_ca.shape.front(), 2 * d_.d}, {k_ca, k_pos});
      auto cross = projected_attention(q_cat, k_cat, v_ca, 2 * d_.d, true, ca / "cross_attn", cn);
      x = norm(b_, add(b_, cross, x, p + n.add(2)), p + n.norm(2, NormKind::LayerNorm), {ca / "cross_attn_layer_norm"});

      const Scope m = l / "mlp";
      auto f = ffn(x, p + n.ffn(), m, d_.decoder_ffn, d_.activation_dropout);
      x = norm(b_, add(b_, f, x, p + n.add(3)), p + n.norm(3, NormKind::LayerNorm), {m / "final_layer_norm"});

      if (!box_head.empty())  // new anchors: sigmoid(bbox_embed(x) + inverse_sigmoid(anchors)), detached
        boxes = mlp(x, fmt::format("Decoder_Box_Refinement_{}", i), box_head, d_.d, d_.d, 4, 3,
                    box_alias.empty() && i == 0, "sigmoid", box_alias);
      // Every layer's output is normalised for the intermediate outputs; the last one is the model's output.
      if (i + 1 < d_.decoder_layers) {
        auto h = b_.node(NodeType::LayerNorm, fmt::format("Decoder_Intermediate_LayerNorm_{}", i), x.shape, {x},
                         final_norm);
        b_.tied(h, final_norm("weight"), {d_.d}, final_norm("weight"), graph::TensorRole::Norm);
        b_.tied(h, final_norm("bias"), {d_.d}, final_norm("bias"), graph::TensorRole::Bias);
      }
    }
    b_.set_block(-1);
    auto out = norm(b_, x, "Decoder_Final_LayerNorm", {final_norm});
    // Modules the loop never reached still hold their parameters.
    if (d_.decoder_layers < 2)
      for (std::int64_t k = 0; k < 2; ++k)
        linear_tensors(b_, out, stack / "query_scale" / "layers" / k, d_.d, d_.d, true);
    if (d_.decoder_layers < 1) {
      linear_tensors(b_, out, stack / "ref_point_head" / "layers" / 0, half_sine, d_.d, true);
      linear_tensors(b_, out, stack / "ref_point_head" / "layers" / 1, d_.d, d_.d, true);
      linear_tensors(b_, out, stack / "ref_anchor_head" / "layers" / 0, d_.d, d_.d, true);
      linear_tensors(b_, out, stack / "ref_anchor_head" / "layers" / 1, d_.d, 2, true);
    }
    return out;
  }

 private:
  Value linear(const Value& x, const Scope& module, const std::string& name) {
    return dense(b_, x, name, module, d_.d, d_.d, true);
  }

  // DabDetrAttention: q, k and v come projected; q/k heads are `qk_width` / heads wide, v's hidden / heads; the
  // module owns only output_proj.
  Value projected_attention(const Value& q, const Value& k, const Value& v, std::int64_t qk_width, bool cross,
                            const Scope& module, const std::string& name) {
    auto attn = b_.node(NodeType::MultiHeadAttention, name, {q.shape.front(), d_.d}, {q, k, v}, module);
    graph::AttentionAttrs attrs{d_.decoder_heads, d_.decoder_heads, qk_width / d_.decoder_heads, q.shape.front(),
                                k.shape.front(), false, 0, d_.attention_dropout, false, false};
    attrs.kv_input = cross ? k.node : -1;
    attrs.sdpa = false;
    attrs.softmax_fp32 = true;
    b_.at(attn).attention = attrs;
    b_.at(attn).dropout = d_.dropout;
    if (qk_width % d_.decoder_heads != 0 || d_.d % d_.decoder_heads != 0)
      b_.fail(attn, fmt::format("embed_dim {} and output_dim {} must be divisible by {} heads", qk_width, d_.d,
                                d_.decoder_heads));
    linear_tensors(b_, attn, module / "output_proj", d_.d, d_.d, true, graph::Operand::Inner);
    return attn;
  }

  GraphBuilder& b_;
  const Dims& d_;
};

graph::Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Dims d = read_dims(c);
  const bool detection = in.class_name.ends_with("ForObjectDetection");
  const Scope model = detection ? Scope("model") : Scope();
  const std::int64_t image = in.image_size(detr::kDefaultImageSize);

  const FeatureMap fm = backbone(c, b, image, model);
  auto projected = conv2d(b, fm.map, "Input_Projection",
                          {.module = model / "input_projection", .in = fm.channels, .out = d.d, .kernel = 1});
  const std::int64_t h = projected.shape.size() == 3 ? projected.shape[1] : 0;
  const std::int64_t w = projected.shape.size() == 3 ? projected.shape[2] : 0;
  const Value tokens{projected.node, {h * w, d.d}};
  // DabDetrSinePositionEmbedding: from the pixel mask, no parameters.
  auto pos = b.node(NodeType::LearnedPosEmbed, "Sine_Position_Embedding", {h * w, d.d}, {fm.map},
                    model / "backbone" / "position_embedding");

  Transformer t(b, d);
  auto memory = t.encoder(tokens, pos, model / "encoder", c.flag({"normalize_before"}, false));

  const std::int64_t base_queries = c.dim({"num_queries"}, 300);
  const Scope anchors_module = model / "query_refpoint_embeddings";
  auto anchors = b.node(NodeType::Embedding, "Anchor_Boxes", {d.queries, d.query_dim}, {memory}, anchors_module);
  b.parameter(anchors, anchors_module("weight"), {base_queries, d.query_dim}, graph::TensorRole::Embedding);
  // The decoder's stream starts at zeros, or at the pattern embeddings repeated for every anchor.
  Value start;
  if (d.queries != base_queries) {
    const Scope patterns = model / "patterns";
    start = b.node(NodeType::Embedding, "Pattern_Embeddings", {d.queries, d.d}, {anchors}, patterns);
    b.parameter(start, patterns("weight"), {d.queries / base_queries, d.d}, graph::TensorRole::Embedding);
  } else {
    start = b.node(NodeType::Embedding, "Zero_Queries", {d.queries, d.d}, {anchors});
  }

  // ForObjectDetection: decoder.bbox_embed is a copy of bbox_predictor that tie_word_embeddings (default true)
  // ties to it; save_pretrained keeps bbox_predictor.
  const bool tie_boxes = c.flag({"tie_word_embeddings"}, true);
  const Scope box_head = detection ? model / "decoder" / "bbox_embed" : Scope();
  const Scope box_predictor("bbox_predictor");
  auto x = t.decoder(start, anchors, memory, pos, model / "decoder", box_head,
                     detection && tie_boxes ? box_predictor : Scope());
  if (!detection) return x;

  // bbox_predictor runs on every layer's normalised output; class_embed on the last one, and on every one for the
  // auxiliary losses.
  const Value all_layers{x.node, {d.queries * d.decoder_layers, d.d}};
  auto logits = classifier(b, c.flag({"auxiliary_loss"}, false) ? all_layers : x, "Class_Logits",
                           Scope("class_embed"), d.d, in.num_labels(), true);
  t.mlp(all_layers, "Box_MLP", box_predictor, d.d, d.d, 4, 3, true, "sigmoid");
  return logits;
}

}  // namespace
}  // namespace dab_detr_impl

const Family& dab_detr_family() {
  static const Family family{"dab_detr", "models/dab_detr/modeling_dab_detr.py",
                             classes("DabDetr", {heads::ForObjectDetection}), dab_detr_impl::build};
  return family;
}

}  // namespace neurarch::families
