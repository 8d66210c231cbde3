#pragma once
// ProphetNet's encoder-decoder, shared by prophetnet and xlm-prophetnet (the same code and config
// under other class names): one word_embeddings table (encoder/decoder.word_embeddings alias it),
// learned positions clamped to the table, post-norm layers, and an n-gram decoder that runs a main
// stream and `ngram` predicting streams through every layer.
#include "families/family.hpp"

namespace neurarch::families::prophetnet {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b);

}  // namespace neurarch::families::prophetnet
