// FNet (models/fnet/modeling_fnet.py + configuration_fnet.py, transformers 5.24.0; the shared ground truth used
// 4.47.1, same layout): BERT's post-norm encoder with each self-attention replaced by a parameter-free Fourier
// transform (the real part of an FFT over the hidden and sequence axes), whose residual sum is normed by
// fourier.output.LayerNorm. The embeddings are BERT's (word + token type + position, LayerNorm) followed by a
// hidden -> hidden `projection`, and the dropout comes after that projection. Every class builds the base model with
// its pooler; the heads are BERT's (cls.predictions with its tied decoder, cls.seq_relationship, a pooled
// classifier). use_tpu_fourier_optimizations (up to 4096 positions) swaps the FFT for products with complex64 DFT
// matrices kept as buffers, only where SciPy is installed: planned as the FFT path, with a note.
// FNetForNextSentencePrediction and FNetForMultipleChoice are left out (no head kind for them).
#include <fmt/format.h>

#include "blocks/fourier_mixer.hpp"
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace fnet_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  // FNetModel always adds its pooler, and every head class builds FNetModel(config) unchanged.
  static const bert::Layout layout{.prefix = "fnet", .pooler = bert::PoolerUse::Always};
  const Config& c = in.config;
  // FNetConfig's defaults (google/fnet-base).
  bert::Trunk t{.hidden = c.dim({"hidden_size"}, 768),
                .intermediate = c.dim({"intermediate_size"}, 3072),
                .vocab = c.dim({"vocab_size"}, 32000),
                .activation = c.text({"hidden_act"}, "gelu_new")};
  t.embedding = t.hidden;
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t max_positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t pad = c.integer({"pad_token_id"}, 3);
  const double dropout = c.number({"hidden_dropout_prob"}, 0.1);
  // The TPU path up to 4096 positions needs SciPy for its DFT matrices; above that it runs axis-wise FFTs, as planned.
  if (c.flag({"use_tpu_fourier_optimizations"}, false) && max_positions <= 4096)
    b.note(fmt::format("use_tpu_fourier_optimizations: with SciPy the reference multiplies by two complex64 DFT "
                       "matrices per layer, kept as persistent buffers (fourier.self.dft_mat_hidden [{0}, {0}], "
                       "dft_mat_seq [{1}, {1}]) that neurarch neither lists nor plans; without SciPy transformers "
                       "5.24 fails to build the model (its fallback calls logging.warning, which "
                       "transformers.utils.logging lacks). Planned here: the FFT path",
                       t.hidden, c.dim({"tpu_short_seq_length"}, 512)));

  t.seq = in.sequence_length(max_positions);
  t.root = in.head == Head::Base ? Scope() : Scope(std::string(layout.prefix));
  const Scope emb = t.root / "embeddings";
  auto x = b.input({t.seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", t.vocab, t.hidden);
  if (pad >= t.vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, t.vocab));
  t.word_embeddings = (emb / "word_embeddings")("weight");
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 4),
                      t.hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", max_positions, t.hidden);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  x = dense(b, x, "Embedding_Projection", emb / "projection", t.hidden, t.hidden, true);
  b.at(x).dropout = dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = t.root / "encoder" / "layer" / i;
    const BlockNames n{i};
    // No dropout on the mixer's output: FNetBasicOutput only norms the residual sum. The node's module is the whole
    // `fourier` block, as BERT's attention node's is `attention`; the residual norm is a node of its own.
    auto mixed = fourier_mixer(b, x, fmt::format("Fourier_Mixer_{}", i), l / "fourier");
    auto h = norm(b, add(b, mixed, x, n.add(1)), n.norm(1, NormKind::LayerNorm),
                  {l / "fourier" / "output" / "LayerNorm"});
    auto f = feed_forward(b, h, n.ffn(),
                          {.hidden = t.hidden, .intermediate = t.intermediate, .activation = t.activation, .module = l,
                           .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                           .output_dropout = dropout});
    x = norm(b, add(b, f, h, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "output" / "LayerNorm"});
  }
  b.set_block(-1);
  t.x = x;
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace fnet_impl

const Family& fnet_family() {
  static const Family family{"fnet", "models/fnet/modeling_fnet.py",
                             classes("FNet", {heads::ForPreTraining, heads::ForMaskedLM,
                                              heads::ForSequenceClassification, heads::ForTokenClassification,
                                              heads::ForQuestionAnswering}),
                             fnet_impl::build};
  return family;
}

}  // namespace neurarch::families
