#include "families/blip_common.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::blip {

using namespace blocks;
using graph::NodeType;

bert::Layout text_layout() {
  bert::Layout l;
  l.prefix = "bert";  // BlipTextLMHeadModel keeps its BlipTextModel under `bert`
  l.defaults = {.vocab = 30524, .hidden = 768, .layers = 12, .heads = 8, .intermediate = 3072, .max_positions = 512,
                .type_vocab = 2, .pad = 0, .activation = "gelu", .hidden_dropout = 0.0, .attention_dropout = 0.0,
                .is_decoder = true};
  l.pooler = bert::PoolerUse::BaseOnly;
  l.token_types = false;
  l.position_type_key = false;
  l.relative_attention = false;
  l.cross_attention_when_decoder = true;
  l.sdpa = false;
  l.tie_lm_decoder = false;
  return l;
}

namespace blip_common_impl {
namespace {

// The reference's attention classes have no SDPA path: mark the node pre_norm_layer just made.
void eager_only(GraphBuilder& b) {
  const auto& nodes = b.graph().nodes;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (!it->attention) continue;
    b.at(Value{it->index, it->out}).attention->sdpa = false;
    return;
  }
}

}  // namespace
}  // namespace blip_common_impl
using namespace blip_common_impl;

VisionTower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const VisionDefaults& defaults,
                         const Scope& root, std::int64_t frames) {
  const std::int64_t hidden = c.dim({"hidden_size"}, defaults.hidden);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, defaults.intermediate);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, defaults.layers);
  const std::int64_t heads = c.dim({"num_attention_heads"}, defaults.heads);
  const std::string activation = c.text({"hidden_act"}, "gelu");
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const bool qkv_bias = !defaults.qkv_bias_key || c.flag({"qkv_bias"}, true);

  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  vit::Geometry g = vit::read_geometry(sub, {defaults.image, defaults.image, false}, defaults.patch);
  g.channels = 3;  // the patch Conv2d is built with in_channels=3 whatever the config says
  const Scope emb = root / "embeddings";

  VisionTower t;
  t.hidden = hidden;
  Value x;
  if (frames > 1) {
    // The frames are a batch of images to the patch Conv2d: [frames, channels, H, W].
    const Scope conv = emb / "patch_embedding";
    t.input = b.input({frames, g.channels, g.input.h, g.input.w}, "pixels");
    x = b.node(NodeType::PatchEmbed, "Patch_Embed", {frames, 1 + g.input_patches(), hidden}, {t.input}, conv);
    b.parameter(x, conv("weight"), {hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
    b.parameter(x, conv("bias"), {hidden}, graph::TensorRole::Bias);
    if (g.input.h < g.patch.h || g.input.w < g.patch.w)
      b.fail(x, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  } else {
    x = vit::pixel_stem(b, g, emb / "patch_embedding", hidden, 1);
    t.input = Value{b.at(x).inputs.front(), {g.channels, g.input.h, g.input.w}};
  }
  b.parameter(x, emb("class_embedding"), {1, 1, hidden}, graph::TensorRole::Embedding);

  // Positions are sliced, not interpolated, unless forward() gets interpolate_pos_encoding=True: a smaller
  // image reads the first rows of the table, a larger one does not fit it.
  const std::int64_t rows = g.configured_patches() + 1;
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb);
  b.parameter(pos, emb("position_embedding"), {1, rows, hidden}, graph::TensorRole::Embedding);
  const std::int64_t tokens = x.shape[x.shape.size() - 2];
  if (tokens > rows)
    b.fail(pos, fmt::format("a {}x{} image makes {} tokens, more than the {} rows of position_embedding (sized for "
                            "image_size {}); pass interpolate_pos_encoding=True to forward() or run at --image-size {}",
                            g.input.h, g.input.w, tokens, rows, g.configured.h, g.configured.h));
  else if (g.input_differs())
    b.note(fmt::format("a {}x{} image reads the first {} of the {} position rows as they are (sliced, not "
                       "interpolated, unless forward() gets interpolate_pos_encoding=True)",
                       g.input.h, g.input.w, tokens, rows));
  x = pos;

  const Scope layer_list = root / "encoder" / "layers";
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = layer_list / i;
    const Scope attn = l / "self_attn";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "layer_norm1"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .o = attn / "projection", .qkv = attn / "qkv",
                       .qkv_bias = qkv_bias, .dropout = attention_dropout};
    layer.norm2 = {l / "layer_norm2"};
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = mlp,
                 .up = mlp / "fc1", .down = mlp / "fc2"};
    x = pre_norm_layer(b, x, i, layer);
    eager_only(b);
  }
  b.set_block(-1);
  t.sequence = norm(b, x, "Post_LayerNorm", {root / "post_layernorm"});
  // The class token goes through the same post_layernorm again: a second node, no second tensor.
  const graph::Shape pooled = frames > 1 ? graph::Shape{frames, hidden} : graph::Shape{hidden};
  t.pooled = b.node(NodeType::LayerNorm, "Pooled_LayerNorm", pooled, {Value{t.sequence.node, pooled}},
                    root / "post_layernorm");
  return t;
}

namespace blip_common_impl {
namespace {

struct QFormerDims {
  std::int64_t hidden, heads, intermediate, max_positions;
  std::string activation;
  double hidden_dropout, attention_dropout;
  bool relative;
};

std::int64_t rows_of(const Value& v) { return v.shape.size() >= 2 ? v.shape[v.shape.size() - 2] : 1; }

// Blip2QFormerAttention under `module`: attention.{query,key,value} (keys and values from `memory` when given),
// output.dense, dropout, residual, output.LayerNorm.
Value qformer_attention(GraphBuilder& b, const Value& x, const std::optional<Value>& memory, std::int64_t width,
                        const Scope& module, const QFormerDims& d, const std::string& name, const std::string& add_name,
                        const std::string& norm_name, const std::optional<Value>& joined = std::nullopt) {
  const Scope attn = module / "attention";
  AttentionSpec spec{.hidden = d.hidden, .heads = d.heads, .module = module, .q = attn / "query", .k = attn / "key",
                     .v = attn / "value", .o = module / "output" / "dense", .dropout = d.attention_dropout,
                     .output_dropout = d.hidden_dropout};
  auto a = memory ? cross_attention(b, x, *memory, name, spec, width) : attention(b, x, name, spec);
  b.at(a).attention->sdpa = false;
  // torch.cat of the queries' and the instruction's rows: both feed q, k and v.
  if (joined) b.at(a).inputs.push_back(joined->node);
  if (d.relative) b.parameter(a, attn("distance_embedding.weight"), {2 * d.max_positions - 1, d.hidden / d.heads}, graph::TensorRole::Embedding);
  return norm(b, add(b, a, x, add_name), norm_name, {module / "output" / "LayerNorm"});
}

// intermediate(_query).dense -> act -> output(_query).dense, dropout, residual, LayerNorm.
Value qformer_ffn(GraphBuilder& b, const Value& x, const Scope& layer, const std::string& suffix, const QFormerDims& d,
                  const std::string& name, const std::string& add_name, const std::string& norm_name) {
  const Scope out = layer / ("output" + suffix);
  FeedForwardSpec spec{.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation,
                       .module = layer, .up = layer / ("intermediate" + suffix) / "dense", .down = out / "dense",
                       .output_dropout = d.hidden_dropout};
  return norm(b, add(b, feed_forward(b, x, name, spec), x, add_name), norm_name, {out / "LayerNorm"});
}

}  // namespace
}  // namespace blip_common_impl
using namespace blip_common_impl;

Value qformer(GraphBuilder& b, const Config& c, const QFormerFeed& f) {
  const std::string position_type = c.text({"position_embedding_type"}, "absolute");
  const QFormerDims d{c.dim({"hidden_size"}, 768),
                      c.dim({"num_attention_heads"}, 12),
                      c.dim({"intermediate_size"}, 3072),
                      c.dim({"max_position_embeddings"}, 512),
                      c.text({"hidden_act"}, "gelu"),
                      c.number({"hidden_dropout_prob"}, 0.1),
                      c.number({"attention_probs_dropout_prob"}, 0.1),
                      position_type == "relative_key" || position_type == "relative_key_query"};
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t frequency = c.dim({"cross_attention_frequency"}, 2);

  const std::int64_t queries = rows_of(f.queries);
  const std::int64_t text = f.instruction_tokens;
  // InstructBLIP-Video runs every frame's queries and instruction as one sample of a batch of frames.
  const auto rows = [frames = f.frames, hidden = d.hidden](std::int64_t n) {
    return frames > 1 ? graph::Shape{frames, n, hidden} : graph::Shape{n, hidden};
  };
  Value x = f.frames > 1 ? Value{f.queries.node, rows(queries)} : f.queries;
  if (text > 0) {
    // InstructBlipQFormerEmbeddings: word + absolute position embeddings of the instruction, joined after the
    // queries, then one LayerNorm and dropout over both.
    const Scope emb = f.root / "embeddings";
    auto ids = b.input({text}, "tokens", f.instruction_input);
    auto words = b.node(NodeType::Embedding, "Instruction_Embedding", rows(text), {ids}, emb / "word_embeddings");
    b.parameter(words, (emb / "word_embeddings")("weight"), {c.dim({"vocab_size"}, 30522), d.hidden}, graph::TensorRole::Embedding);
    auto positions = b.node(NodeType::LearnedPosEmbed, "Instruction_Position_Embedding", words.shape, {words},
                            emb / "position_embeddings");
    b.parameter(positions, (emb / "position_embeddings")("weight"), {d.max_positions, d.hidden}, graph::TensorRole::Embedding);
    x = norm(b, Value{x.node, rows(queries + text)}, "Embedding_LayerNorm", {emb / "layernorm"});
    b.at(x).inputs.push_back(positions.node);
  } else {
    x = norm(b, x, "Embedding_LayerNorm", {f.root / "layernorm"});
  }
  b.at(x).dropout = d.hidden_dropout;
  std::optional<Value> instruction;  // the previous layer's instruction rows, joined to its query rows

  if (frequency <= 0) b.fail(x, fmt::format("cross_attention_frequency {} must be positive", frequency));
  const Scope layer_list = f.root / "encoder" / "layer";
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = layer_list / i;
    const BlockNames n{i};
    int k = 1;
    auto next = [&] {
      std::pair names{n.add(k), n.norm(k, NormKind::LayerNorm)};
      ++k;
      return names;
    };
    auto [add1, norm1] = next();
    const Value joined = qformer_attention(b, x, std::nullopt, d.hidden, l / "attention", d, n.attention(), add1,
                                           norm1, instruction);
    x = Value{joined.node, rows(queries)};
    if (frequency > 0 && i % frequency == 0) {
      auto [add2, norm2] = next();
      x = qformer_attention(b, x, f.image, f.encoder_width, l / "crossattention", d, fmt::format("Cross_Attention_{}", i),
                            add2, norm2);
    }
    auto [add3, norm3] = next();
    x = qformer_ffn(b, x, l, "_query", d, fmt::format("Query_FFN_{}", i), add3, norm3);
    if (text > 0) {
      auto [add4, norm4] = next();
      instruction = qformer_ffn(b, Value{joined.node, rows(text)}, l, "", d, fmt::format("Instruction_FFN_{}", i),
                                add4, norm4);
      x = Value{x.node, rows(queries + text)};
    } else if (f.text_ffn) {
      // Stored for text input this forward does not have: on the layer's last node, which claims no compute.
      linear_tensors(b, x, l / "intermediate" / "dense", d.hidden, d.intermediate, true);
      linear_tensors(b, x, l / "output" / "dense", d.intermediate, d.hidden, true);
      b.parameter(x, (l / "output" / "LayerNorm")("weight"), {d.hidden}, graph::TensorRole::Norm);
      b.parameter(x, (l / "output" / "LayerNorm")("bias"), {d.hidden}, graph::TensorRole::Bias);
    }
  }
  b.set_block(-1);
  return Value{x.node, rows(queries)};
}

Value query_tokens(GraphBuilder& b, std::int64_t queries, std::int64_t hidden) {
  auto tokens = b.node(NodeType::Embedding, "Query_Tokens", {queries, hidden}, {});
  b.parameter(tokens, "query_tokens", {1, queries, hidden}, graph::TensorRole::Other);
  return tokens;
}

namespace blip_common_impl {
namespace {

// AutoModelForCausalLM when text_config's family has a causal-LM class, else AutoModelForSeq2SeqLM.
multimodal::LanguageModel pick_language_model(const Config& text) {
  const std::string type = text.text({"model_type"}, "opt");
  multimodal::LanguageModel lm{find_family(type), nullptr};
  if (lm.family) {
    for (const auto& k : lm.family->classes)
      if (k.head == Head::CausalLM) lm.cls = &k;
    if (!lm.cls)
      for (const auto& k : lm.family->classes)
        if (k.head == Head::Seq2SeqLM && !lm.cls) lm.cls = &k;
  }
  if (!lm.cls)
    throw Error(ErrorKind::Unsupported, text.origin() + ": key 'model_type'",
                fmt::format("the language model '{}' is not a supported causal or sequence-to-sequence LM", type));
  return lm;
}

}  // namespace
}  // namespace blip_common_impl
using namespace blip_common_impl;

std::int64_t language_width(const BuildInput& in, const Config& text) {
  return multimodal::token_width(in, text, blip_common_impl::pick_language_model(text));
}

Value language_model(const BuildInput& in, GraphBuilder& b, const Config& text, const Value& features) {
  const std::string type = text.text({"model_type"}, "opt");
  const multimodal::LanguageModel picked = blip_common_impl::pick_language_model(text);
  const Family* family = picked.family;
  const ClassDef* cls = picked.cls;

  const std::int64_t queries = blip_common_impl::rows_of(features);
  const auto* index = in.config.raw({"image_token_index"});
  const bool expanded = index && !index->is_null();
  const std::size_t before = b.graph().inputs.size();
  Value out;
  {
    graph::Nested nest(b, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
    const BuildInput lm{text, std::string(cls->name), cls->head, in.requested_seq, in.requested_image_size,
                        in.requested_target_seq};
    out = family->build(lm, b);
  }

  std::optional<graph::GraphInput> ids;
  for (std::size_t i = before; i < b.graph().inputs.size(); ++i)
    if (b.graph().inputs[i].name == "input_ids") ids = b.graph().inputs[i];
  std::optional<Value> embedded;
  for (const auto& n : b.graph().nodes)
    if (ids && n.type == NodeType::Embedding && !n.inputs.empty() && n.inputs.front() == ids->node) {
      embedded = Value{n.index, n.out};
      break;
    }
  if (!embedded)
    throw Error(ErrorKind::Unsupported, text.origin() + ": key 'model_type'",
                fmt::format("the language model '{}' embeds no input_ids the query outputs could join", type));
  b.at(*embedded).inputs.push_back(features.node);
  if (embedded->shape.back() != features.shape.back())
    b.fail(*embedded, fmt::format("language_projection writes {}-wide query outputs; the language model embeds "
                                  "tokens {} wide",
                                  features.shape.back(), embedded->shape.back()));
  const std::int64_t total = ids->shape.front();
  if (total < queries) {
    b.fail(*embedded, fmt::format("a {}-token sequence cannot hold the {} query outputs", total, queries));
  } else if (!expanded) {
    b.note(fmt::format("image_token_index is unset: the {} query outputs go in front of the embedded input_ids, so "
                       "input_ids holds {} of the language model's {} positions",
                       queries, total - queries, total));
  }
  return out;
}

Value instructed(const BuildInput& in, GraphBuilder& b, std::int64_t frames) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config qformer_config = c.child("qformer_config");
  const Config text_config = c.child("text_config");
  const std::int64_t queries = c.dim({"num_query_tokens"}, 32);
  const std::int64_t qformer_hidden = qformer_config.dim({"hidden_size"}, 768);
  const std::int64_t qformer_positions = qformer_config.dim({"max_position_embeddings"}, 512);
  // The processor tokenizes the same prompt for both models: the instruction is the language model's text
  // positions, which cannot pass the Q-Former's position rows.
  const std::int64_t text_positions = in.requested_seq.value_or(kDefaultSequenceCap) - frames * queries;
  const std::int64_t instruction = std::clamp<std::int64_t>(text_positions, 1, qformer_positions);

  VisionTower v;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
    v = vision_tower(in, b, vision_config, kBlip2Vision, Scope("vision_model"), frames);
  }
  Value query_output;
  {
    graph::Nested nest(b, {.module = "", .label = "QFormer_", .first_block = b.next_block()});
    query_output = qformer(b, qformer_config,
                           {.root = Scope("qformer"),
                            .queries = query_tokens(b, queries, qformer_hidden),
                            .image = v.sequence,
                            .encoder_width = v.hidden,
                            .instruction_tokens = instruction,
                            .frames = frames});
  }
  b.note(fmt::format("the Q-Former reads a {}-token instruction (qformer_input_ids: the prompt's text positions, at "
                     "most its {} position rows) beside its {} queries",
                     instruction, qformer_positions, queries));
  const std::int64_t width = language_width(in, text_config);
  auto features = dense(b, query_output, "Language_Projection", Scope("language_projection"), qformer_hidden, width,
                        true);
  // Every frame's query outputs, one after another, fill the prompt's image tokens.
  return language_model(in, b, text_config, Value{features.node, {frames * queries, width}});
}

Value instruction_qformer_model(const BuildInput& in, GraphBuilder& b) {
  constexpr std::int64_t kQueries = 32;  // InstructBlipConfig.num_query_tokens
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t width = c.dim({"encoder_hidden_size"}, 1408);
  const std::int64_t side = in.image_size(kBlip2Vision.image) / kBlip2Vision.patch;
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t instruction = in.sequence_length(positions);
  auto queries = b.input({kQueries, hidden}, "embeddings", "query_embeds");
  auto image = b.input({side * side + 1, width}, "embeddings", "encoder_hidden_states");
  auto out = qformer(b, c,
                      {.queries = queries, .image = image, .encoder_width = width,
                       .instruction_tokens = instruction, .instruction_input = "input_ids"});
  if (instruction > positions)
    b.fail(out, fmt::format("an instruction of {} tokens passes the Q-Former's {} position rows", instruction,
                            positions));
  // input_ids is forward()'s first argument.
  for (const auto& input : b.graph().inputs)
    if (input.name == "input_ids") b.set_main_input(Value{input.node, input.shape});
  return out;
}

}  // namespace neurarch::families::blip
