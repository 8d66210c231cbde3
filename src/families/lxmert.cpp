// LXMERT (models/lxmert/modeling_lxmert.py + configuration_lxmert.py, transformers 4.47.1; 5.24 checked): two
// BERT streams and a cross-modal encoder. Language: BERT's embeddings (word, position, token type, LayerNorm) and
// l_layers BERT post-norm layers (`encoder.layer`). Vision: `encoder.visn_fc` maps each region's visual_feat_dim
// features and its visual_pos_dim box through a Linear + LayerNorm each and averages the two; r_layers BERT layers
// (`encoder.r_layers`). Then x_layers cross-modal layers (`encoder.x_layers`): one cross-attention module
// (`visual_attention`) run twice with the same weights, language over vision and vision over language; a BERT
// self-attention per stream (`lang_self_att`, `visn_self_att`) and a BERT feed-forward per stream
// (`lang_inter`/`lang_output`, `visn_inter`/`visn_output`). The tanh pooler reads the language stream's first
// token. Attention is eager only. --seq is the text length; the regions are 36 (the Faster R-CNN features the
// reference's examples and pre-training use; no config key says).
#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/family.hpp"
#include "families/shared_parameters.hpp"

namespace neurarch::families {
namespace lxmert_impl {
namespace {

using namespace blocks;

constexpr std::int64_t kRegions = 36;

struct Dims {
  std::int64_t hidden, heads, intermediate;
  std::string activation;
  double hidden_dropout, attention_dropout;
};

AttentionSpec attention_spec(const Dims& d, const Scope& module, const Scope& qkv, const Scope& output) {
  return {.hidden = d.hidden, .heads = d.heads, .module = module, .q = qkv / "query", .k = qkv / "key",
          .v = qkv / "value", .o = output / "dense", .dropout = d.attention_dropout, .output_dropout = d.hidden_dropout};
}

// LxmertAttentionOutput: dense, dropout, LayerNorm(h + residual).
Value attention_output(GraphBuilder& b, const Value& h, const Value& residual, const std::string& tag,
                       const Scope& output) {
  b.at(h).attention->sdpa = false;
  return norm(b, add(b, h, residual, "Add_" + tag), "LayerNorm_" + tag, {output / "LayerNorm"});
}

// LxmertIntermediate + LxmertOutput.
Value feed_forward_output(GraphBuilder& b, const Value& x, const Dims& d, const std::string& tag,
                          const Scope& inter, const Scope& output) {
  auto h = feed_forward(b, x, "FFN_" + tag,
                        {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation,
                         .module = inter, .up = inter / "dense", .down = output / "dense",
                         .output_dropout = d.hidden_dropout});
  return norm(b, add(b, h, x, "Add_FFN_" + tag), "LayerNorm_FFN_" + tag, {output / "LayerNorm"});
}

// LxmertLayer: BERT's post-norm layer under `l`.
Value bert_layer(GraphBuilder& b, const Value& x, const Dims& d, const std::string& tag, const Scope& l) {
  const Scope out = l / "attention" / "output";
  auto h = attention(b, x, "Attention_" + tag, attention_spec(d, l / "attention", l / "attention" / "self", out));
  h = attention_output(b, h, x, tag, out);
  return feed_forward_output(b, h, d, tag, l / "intermediate", l / "output");
}

// A second run of `first`'s module: a node of its own whose tensors alias the first run's.
Value rerun_cross_attention(GraphBuilder& b, const Value& first, const Value& x, const Value& memory,
                            const std::string& name) {
  const graph::Node f = b.graph().nodes[static_cast<std::size_t>(first.node)];
  auto out = b.node(f.type, name, x.shape, {x, memory}, Scope(f.path));
  auto attrs = *f.attention;
  attrs.query_len = x.shape.front();
  attrs.kv_len = memory.shape.front();
  attrs.kv_input = memory.node;
  b.at(out).attention = attrs;
  b.at(out).dropout = f.dropout;
  for (int t : f.tensors) {
    const auto spec = b.graph().tensors[static_cast<std::size_t>(t)];
    b.tied(out, spec.name, spec.shape, spec.name, spec.role, spec.operand);
  }
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Dims d{c.dim({"hidden_size"}, 768), c.dim({"num_attention_heads"}, 12), c.dim({"intermediate_size"}, 3072),
               c.text({"hidden_act"}, "gelu"), c.number({"hidden_dropout_prob"}, 0.1),
               c.number({"attention_probs_dropout_prob"}, 0.1)};
  const std::int64_t l_layers = c.dim({"l_layers"}, 9), x_layers = c.dim({"x_layers"}, 5),
                     r_layers = c.dim({"r_layers"}, 5);
  const Scope encoder("encoder");

  // Language embeddings.
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  const Scope emb("embeddings");
  auto lang = token_embedding(b, ids, "Word_Embedding", emb / "word_embeddings", c.dim({"vocab_size"}, 30522),
                              d.hidden);
  lang = learned_positions(b, lang, "Position_Embedding", emb / "position_embeddings", positions, d.hidden);
  lang = added_embedding(b, lang, "Token_Type_Embedding", emb / "token_type_embeddings",
                         c.dim({"type_vocab_size"}, 2), d.hidden);
  lang = norm(b, lang, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(lang).dropout = d.hidden_dropout;

  // Region features and boxes.
  const std::int64_t feat = c.dim({"visual_feat_dim"}, 2048), pos = c.dim({"visual_pos_dim"}, 4);
  auto feats = b.input({kRegions, feat}, "pixels", "visual_feats");
  auto boxes = b.input({kRegions, pos}, "pixels", "visual_pos");
  const Scope visn = encoder / "visn_fc";
  auto v = norm(b, dense(b, feats, "Visual_FC", visn / "visn_fc", feat, d.hidden, true), "Visual_LayerNorm",
                {visn / "visn_layer_norm"});
  auto box = norm(b, dense(b, boxes, "Box_FC", visn / "box_fc", pos, d.hidden, true), "Box_LayerNorm",
                  {visn / "box_layer_norm"});
  v = add(b, v, box, "Visual_Box_Mean");
  b.at(v).dropout = d.hidden_dropout;

  std::int64_t block = 0;
  for (std::int64_t i = 0; i < l_layers; ++i, ++block) {
    b.set_block(static_cast<int>(block));
    lang = bert_layer(b, lang, d, fmt::format("{}", i), encoder / "layer" / i);
  }
  for (std::int64_t i = 0; i < r_layers; ++i, ++block) {
    b.set_block(static_cast<int>(block));
    v = bert_layer(b, v, d, fmt::format("Vision_{}", i), encoder / "r_layers" / i);
  }
  for (std::int64_t i = 0; i < x_layers; ++i, ++block) {
    b.set_block(static_cast<int>(block));
    const Scope l = encoder / "x_layers" / i;
    const Scope cross = l / "visual_attention";
    const std::string tag = fmt::format("Cross_{}", i);
    auto spec = attention_spec(d, cross, cross / "att", cross / "output");
    auto to_visual = cross_attention(b, lang, v, "Language_To_Vision_" + tag, spec);
    b.at(to_visual).attention->sdpa = false;
    auto to_lang = rerun_cross_attention(b, to_visual, v, lang, "Vision_To_Language_" + tag);
    // The output module runs twice too: its dense is the attention nodes' o, its LayerNorm is shared here.
    SharedParameters shared(b);
    const Scope output_norm = cross / "output" / "LayerNorm";
    auto lang_x = shared.layer_norm(add(b, to_visual, lang, "Add_Language_" + tag), "LayerNorm_Language_" + tag,
                                    output_norm);
    auto v_x = shared.layer_norm(add(b, to_lang, v, "Add_Vision_" + tag), "LayerNorm_Vision_" + tag, output_norm);
    // Self-attention per stream, then the feed-forward per stream.
    const Scope ls = l / "lang_self_att", vs = l / "visn_self_att";
    auto h = attention(b, lang_x, "Language_Self_" + tag, attention_spec(d, ls, ls / "self", ls / "output"));
    lang = attention_output(b, h, lang_x, "Language_Self_" + tag, ls / "output");
    h = attention(b, v_x, "Vision_Self_" + tag, attention_spec(d, vs, vs / "self", vs / "output"));
    v = attention_output(b, h, v_x, "Vision_Self_" + tag, vs / "output");
    lang = feed_forward_output(b, lang, d, "Language_" + tag, l / "lang_inter", l / "lang_output");
    v = feed_forward_output(b, v, d, "Vision_" + tag, l / "visn_inter", l / "visn_output");
  }
  b.set_block(-1);
  return pooler(b, lang, "Pooler", Scope("pooler") / "dense", d.hidden);
}

}  // namespace
}  // namespace lxmert_impl

const Family& lxmert_family() {
  static const Family family{"lxmert", "models/lxmert/modeling_lxmert.py", {{"LxmertModel", Head::Base}}, lxmert_impl::build};
  return family;
}

}  // namespace neurarch::families
