// Kyutai speech-to-text (KyutaiSpeechToTextModel / ...ForConditionalGeneration in
// models/kyutai_speech_to_text/modular_kyutai_speech_to_text.py, transformers 4.57.6; 5.24 checked): MoshiModel
// (moshi::decoder) with another embedding and LlamaForCausalLM's head, plus the Mimi codec that turns audio into
// the codes it reads.
// - embed_tokens.embed_tokens: one table of vocab_size + num_codebooks x codebook_vocab_size + 1 rows; each step's
//   input is one text token and num_codebooks audio codes, each read at its own offset, the lookups summed.
// - ForConditionalGeneration: `model`, a bias-free lm_head of vocab_size rows, and codec_model (MimiModel of
//   codec_config), built as its own branch from one second of waveform.
// KyutaiSpeechToTextConfig's defaults differ from Moshi's: 2048 wide, 48 layers, 750 positions, a 375-step
// window, ffn_dim 11264, 4001 text tokens, 32 codebooks of 2049 codes.
#include "blocks/blocks.hpp"
#include "families/mimi.hpp"
#include "families/moshi.hpp"

namespace neurarch::families {
namespace kyutai_speech_to_text_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const moshi::Dims d = moshi::read(c, {.vocab = 4001, .hidden = 2048, .layers = 48, .heads = 32, .ffn = 11264,
                                        .positions = 750, .window = 375});
  const std::int64_t codebooks = c.dim({"num_codebooks"}, 32);
  const std::int64_t codebook_vocab = c.dim({"codebook_vocab_size"}, 2049);
  const bool head = in.head == Head::CausalLM;
  const Scope root = head ? Scope("model") : Scope();

  const std::int64_t steps = in.sequence_length(d.positions);
  auto ids = b.input({steps, codebooks + 1}, "tokens");
  const Scope table = root / "embed_tokens" / "embed_tokens";
  auto x = b.node(graph::NodeType::Embedding, "Text_And_Audio_Embedding", {steps, d.hidden}, {ids}, table);
  b.parameter(x, table("weight"), {d.vocab + codebooks * codebook_vocab + 1, d.hidden}, graph::TensorRole::Embedding);
  x = moshi::decoder(b, x, d, root);
  x = moshi::causal_lm_head(b, x, d, head);
  if (head) mimi::nested_codec(b, c.child("codec_config"), "codec_model");
  return x;
}

}  // namespace
}  // namespace kyutai_speech_to_text_impl

const Family& kyutai_speech_to_text_family() {
  static const Family family{"kyutai_speech_to_text", "models/kyutai_speech_to_text/modeling_kyutai_speech_to_text.py",
                             classes("KyutaiSpeechToText", {HeadClass{"ForConditionalGeneration", Head::CausalLM}}),
                             kyutai_speech_to_text_impl::build};
  return family;
}

}  // namespace neurarch::families
