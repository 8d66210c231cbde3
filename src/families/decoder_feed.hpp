#pragma once
// What a composite encoder-decoder (EncoderDecoderModel and its vision and speech twins) hands the causal LM it
// nests as its decoder: the encoder's last hidden state, which the decoder's cross-attention reads, and the
// name forward() gives the decoder's token ids. The composite opens the feed on its GraphBuilder while the
// decoder's family builds; a family built alone finds none. Families whose layers can attend to an encoder
// (BERT-style, GPT-2, BART-style decoders) ask for it.
#include <string>

#include "graph/builder.hpp"

namespace neurarch::families {

struct DecoderFeed {
  graph::Value encoder_states;  ///< [length, width]
  std::string input_name = "decoder_input_ids";
};

/// Keeps `feed` open on `b` for the lifetime of the object.
class FeedDecoder {
 public:
  FeedDecoder(const graph::GraphBuilder& b, DecoderFeed feed);
  ~FeedDecoder();
  FeedDecoder(const FeedDecoder&) = delete;
  FeedDecoder& operator=(const FeedDecoder&) = delete;

 private:
  const graph::GraphBuilder& b_;
};

/// The feed open on `b`, or nullptr when the model being built is not a composite's decoder.
const DecoderFeed* decoder_feed(const graph::GraphBuilder& b);

}  // namespace neurarch::families
