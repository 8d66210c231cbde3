// Pop2Piano (Pop2PianoForConditionalGeneration in models/pop2piano/modeling_pop2piano.py, transformers 4.47.1;
// 5.24 checked): T5 v1.1 (t5_common) whose encoder reads the processor's spectrogram features, not token ids.
// mel_conditioner.embedding [composer_vocab_size, d_model] turns the chosen composer into one vector that
// precedes the features (so the encoder sees 1 + frames positions); encoder.embed_tokens remains an unused alias
// of `shared`. Pop2PianoConfig's defaults: vocab 2400, gated-gelu projections with dense_act_fn "relu" (the
// gate's activation is relu, not gelu_new), tie_word_embeddings true.
#include "blocks/seq2seq.hpp"
#include "blocks/blocks.hpp"
#include "families/t5_common.hpp"

namespace neurarch::families {
namespace pop2piano_impl {
namespace {

using namespace blocks;

// Pop2PianoConcatEmbeddingToMel: cat([composer embedding, features]) along the sequence.
Value composer_and_features(const BuildInput& in, GraphBuilder& b, std::int64_t source, std::int64_t d_model) {
  const std::int64_t composers = in.config.dim({"composer_vocab_size"}, 21);
  const std::int64_t frames = std::max<std::int64_t>(source - 1, 1);
  auto features = b.input({frames, d_model}, "audio_features", "input_features");
  auto composer = b.input({1}, "tokens", "composer");
  auto embedded = token_embedding(b, composer, "Composer_Embedding", Scope("mel_conditioner") / "embedding",
                                  composers, d_model);
  return b.node(graph::NodeType::Add, "Composer_Concat", {frames + 1, d_model}, {embedded, features});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  return t5::build(in, b,
                   {.bias_in_every_layer = false,
                    .defaults = {.vocab = 2400, .feed_forward_proj = "gated-gelu", .dense_act_fn = "relu"},
                    .encoder_embeds = composer_and_features});
}

}  // namespace
}  // namespace pop2piano_impl

const Family& pop2piano_family() {
  static const Family family{"pop2piano", "models/pop2piano/modeling_pop2piano.py",
                             {{"Pop2PianoForConditionalGeneration", Head::Seq2SeqLM}}, pop2piano_impl::build};
  return family;
}

}  // namespace neurarch::families
