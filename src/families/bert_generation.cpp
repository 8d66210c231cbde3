// BertGeneration (models/bert_generation/modeling_bert_generation.py, transformers 4.47.1): the
// BERT encoder of the seq2seq "BERT2BERT" checkpoints. No token-type table and no pooler; the
// decoder class (is_decoder, usually with cross-attention) puts a bare lm_head on top: decoder
// weight tied to the word embeddings and decoder.bias the same parameter as lm_head.bias.
// Defaults are the large model (1024 wide, 24 layers, 50358 tokens).
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace bert_generation_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  static const bert::Layout layout{
      .prefix = "bert",
      .defaults = {.vocab = 50358, .hidden = 1024, .layers = 24, .heads = 16, .intermediate = 4096},
      .pooler = bert::PoolerUse::Never,
      .token_types = false};
  bert::Trunk t = bert::trunk(in, b, layout);
  if (in.head != Head::CausalLM) return t.x;
  const bool tie = in.config.flag({"tie_word_embeddings"}, true);
  Scope head("lm_head");
  return lm_head(b, t.x, "LM_Head",
                 {.module = head / "decoder", .hidden = t.hidden, .vocab = t.vocab, .bias = true,
                  .tied_weight = tie ? t.word_embeddings : std::string(), .tied_bias = head("bias"),
                  .extra_bias = head("bias")});
}

}  // namespace
}  // namespace bert_generation_impl

const Family& bert_generation_family() {
  static const Family family{"bert-generation",
                             "models/bert_generation/modeling_bert_generation.py",
                             {{"BertGenerationEncoder", Head::Base}, {"BertGenerationDecoder", Head::CausalLM}},
                             bert_generation_impl::build};
  return family;
}

}  // namespace neurarch::families
