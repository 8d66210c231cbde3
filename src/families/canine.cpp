// CANINE (models/canine/modeling_canine.py + configuration_canine.py, transformers 4.47.1): characters in, no
// vocabulary. char_embeddings: num_hash_functions hashed code-point tables [num_hash_buckets, hidden /
// num_hash_functions] concatenated, learned char positions (num_hash_buckets rows), token types, LayerNorm. initial_char_encoder: one BERT
// layer attending within local_transformer_stride-wide chunks; chars_to_molecules: a Conv1d of kernel = stride =
// downsampling_rate (the last molecule dropped, the first character prepended as CLS) and a LayerNorm; encoder:
// num_hidden_layers BERT layers over the seq / downsampling_rate molecules, whose first token the pooler reads;
// the molecules repeated back to characters and concatenated with the chars' encoding, projected by a
// "same"-padded Conv1d (upsampling_kernel_size) + LayerNorm, and final_char_encoder: one more BERT layer (full
// attention). Heads: classifier on the pooled output (sequence classification) or on every character (token
// classification), qa_outputs.
#include <algorithm>

#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace canine_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t hidden, heads, intermediate;
  std::string activation;
  double hidden_dropout, attention_dropout;
};

// One BERT layer (attention.self.*, attention.output.*, intermediate.dense, output.*) under `layer`; `chunk` > 0:
// every query attends only within its chunk of that many positions.
Value bert_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& layer, const Dims& d,
                 std::int64_t chunk) {
  const Scope attn = layer / "attention";
  PostNormLayer l{.attention = {.hidden = d.hidden, .heads = d.heads, .module = attn, .q = attn / "self" / "query",
                                .k = attn / "self" / "key", .v = attn / "self" / "value",
                                .o = attn / "output" / "dense", .dropout = d.attention_dropout,
                                .output_dropout = d.hidden_dropout},
                  .norm1 = {attn / "output" / "LayerNorm"},
                  .ffn = {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation,
                          .module = layer, .up = layer / "intermediate" / "dense", .down = layer / "output" / "dense",
                          .output_dropout = d.hidden_dropout},
                  .norm2 = {layer / "output" / "LayerNorm"}};
  const int first = static_cast<int>(b.graph().nodes.size());
  auto out = post_norm_layer(b, x, i, l);
  if (chunk > 0)
    for (std::size_t n = static_cast<std::size_t>(first); n < b.graph().nodes.size(); ++n)
      if (auto& a = b.at(Value{static_cast<int>(n), {}}).attention) {
        a->query_len = std::min(a->query_len, chunk);
        a->kv_len = std::min(a->kv_len, chunk);
      }
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Dims d{.hidden = c.dim({"hidden_size"}, 768),
               .heads = c.dim({"num_attention_heads"}, 12),
               .intermediate = c.dim({"intermediate_size"}, 3072),
               .activation = c.text({"hidden_act"}, "gelu"),
               .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1),
               .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1)};
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 16384);
  const std::int64_t type_vocab = c.dim({"type_vocab_size"}, 16);
  const std::int64_t rate = c.dim({"downsampling_rate"}, 4);
  const std::int64_t up_kernel = c.dim({"upsampling_kernel_size"}, 4);
  const std::int64_t hashes = c.dim({"num_hash_functions"}, 8);
  const std::int64_t buckets = c.dim({"num_hash_buckets"}, 16384);
  const std::int64_t stride = c.dim({"local_transformer_stride"}, 128);

  const Scope root = in.head == Head::Base ? Scope() : Scope("canine");
  const std::int64_t seq = in.sequence_length(std::min(positions, buckets));
  auto ids = b.input({seq}, "tokens");
  const Scope emb = root / "char_embeddings";
  auto x = b.node(NodeType::Embedding, "Hash_Embedding", {seq, d.hidden}, {ids}, emb);
  for (std::int64_t i = 0; i < hashes; ++i)
    b.parameter(x, emb(fmt::format("HashBucketCodepointEmbedder_{}.weight", i)), {buckets, d.hidden / hashes}, graph::TensorRole::Embedding);
  if (d.hidden % hashes != 0)
    b.fail(x, fmt::format("hidden_size {} is not divisible by num_hash_functions {}", d.hidden, hashes));
  // The position table has num_hash_buckets rows (the reference sizes it so), not max_position_embeddings.
  x = learned_positions(b, x, "Position_Embedding", emb / "char_position_embeddings", buckets, d.hidden);
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", type_vocab, d.hidden);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = d.hidden_dropout;

  std::int64_t block = 0;
  b.set_block(static_cast<int>(block));
  const Value chars = bert_layer(b, x, block++, root / "initial_char_encoder" / "layer" / 0, d, stride);

  const Scope down = root / "chars_to_molecules";
  auto molecules = conv1d(b, chars, "Chars_To_Molecules",
                          {.module = down / "conv", .in_channels = d.hidden, .out_channels = d.hidden, .kernel = rate,
                           .stride = rate, .activation = d.activation});
  // The last molecule is dropped and the CLS character takes the first place: the count stays seq / rate.
  molecules = norm(b, molecules, "Molecule_LayerNorm", {down / "LayerNorm"});
  for (std::int64_t i = 0; i < layers; ++i, ++block) {
    b.set_block(static_cast<int>(block));
    molecules = bert_layer(b, molecules, block, root / "encoder" / "layer" / i, d, 0);
  }
  b.set_block(-1);
  // Every class builds CanineModel with its pooler (add_pooling_layer defaults to True).
  const Value pooled = pooler(b, molecules, "Pooler", root / "pooler" / "dense", d.hidden);

  // The molecules repeated back to characters, side by side with the characters' encoding.
  auto concat = b.node(NodeType::Add, "Upsample_Concat", {seq, 2 * d.hidden}, {chars, molecules});
  const Scope projection = root / "projection";
  auto h = conv1d(b, concat, "Projection",
                  {.module = projection / "conv", .in_channels = 2 * d.hidden, .out_channels = d.hidden,
                   .kernel = up_kernel, .padding = 0, .activation = d.activation});
  // ConstantPad1d pads kernel - 1 frames around the input, so the length stays seq.
  b.at(h).out = {seq, d.hidden};
  b.at(h).conv->out_len = seq;
  h = Value{h.node, {seq, d.hidden}};
  h = norm(b, h, "Projection_LayerNorm", {projection / "LayerNorm"});
  b.at(h).dropout = d.hidden_dropout;
  b.set_block(static_cast<int>(block));
  h = bert_layer(b, h, block, root / "final_char_encoder" / "layer" / 0, d, 0);
  b.set_block(-1);

  switch (in.head) {
    case Head::SequenceClassification:
      return classifier(b, pooled, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::TokenClassification:
      return classifier(b, h, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, h, "QA_Head", Scope("qa_outputs"), d.hidden, in.num_labels(), true);
    default:
      return pooled;
  }
}

}  // namespace
}  // namespace canine_impl

const Family& canine_family() {
  static const Family family{"canine",
                             "models/canine/modeling_canine.py",
                             {{"CanineModel", Head::Base},
                              {"CanineForSequenceClassification", Head::SequenceClassification},
                              {"CanineForTokenClassification", Head::TokenClassification},
                              {"CanineForQuestionAnswering", Head::QuestionAnswering}},
                             canine_impl::build};
  return family;
}

}  // namespace neurarch::families
