// Marian (models/marian/modeling_marian.py + configuration_marian.py, transformers 4.47.1):
// post-norm like BART without layernorm_embedding, a stored sinusoid for positions. With
// share_encoder_decoder_embeddings false the stacks own copies of the source table and the head
// predicts decoder_vocab_size tokens. Defaults: vocab 58101, pad 58100. Attention is eager only.
// MarianMTModel leaves both position tables out of its checkpoint (_keys_to_ignore_on_save).
#include "families/bart_common.hpp"

namespace neurarch::families {
namespace marian_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return bart::build(in, b, {.defaults = {.vocab = 58101, .pad = 58100},
                                .positions = bart::Positions::SinusoidStored,
                                .layernorm_embedding = false,
                                .marian_vocab = true,
                                .sdpa = false,
                                .lm_drops_positions = true});
}
}  // namespace
}  // namespace marian_impl

const Family& marian_family() {
  static const Family family{"marian", "models/marian/modeling_marian.py",
                             classes("Marian", {{"MTModel", Head::Seq2SeqLM}, heads::ForCausalLM}), marian_impl::build};
  return family;
}

}  // namespace neurarch::families
