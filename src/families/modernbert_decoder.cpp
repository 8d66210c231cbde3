// ModernBERT decoder (models/modernbert_decoder/modeling_modernbert_decoder.py + configuration_, transformers
// 4.57.6): ModernBERT's layer made causal, with q/k/v as separate projections (Wo stays). layer_types decides
// full or sliding attention per layer (absent: every global_attn_every_n_layers-th layer from 0 is full); the
// window is local_attention / 2. The first layer has no attention norm. The causal LM runs the prediction head
// (lm_head.dense + act + lm_head.norm) then `decoder` (tied to the token embedding, decoder_bias); sequence
// classification runs `head` on every position, then `classifier`, and keeps the last non-pad token.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/llama_common.hpp"
#include "families/modernbert.hpp"

namespace neurarch::families {
namespace modernbert_decoder_impl {
namespace {

using namespace blocks;
using graph::NodeType;

std::vector<std::int64_t> layer_windows(const Config& c, std::int64_t layers, std::int64_t window) {
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  const std::int64_t every = c.dim({"global_attn_every_n_layers"}, 3);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), 0);
  for (std::int64_t i = 0; i < layers; ++i)
    if (i % every != 0) out[static_cast<std::size_t>(i)] = window;
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const modernbert::Spec s = modernbert::read(c);
  const auto windows = layer_windows(c, s.layers, c.dim({"local_attention"}, 128) / 2);
  const Scope root = modernbert::root(in);
  const std::int64_t hidden = s.hidden, vocab = s.vocab;
  const double mlp_dropout = c.number({"mlp_dropout"}, 0.0);

  auto x = modernbert::embeddings(in, b, s);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope attn = root / "layers" / i / "attn";
    x = modernbert::layer(b, x, i, root, s,
                          {.causal = true, .window = windows[static_cast<std::size_t>(i)], .q = attn / "q_proj",
                           .k = attn / "k_proj", .v = attn / "v_proj"},
                          {.inner_dropout = mlp_dropout});
  }
  b.set_block(-1);
  x = modernbert::final_norm(b, x, root, s);
  if (in.head == Head::Base) return x;

  auto prediction_head = [&](const Value& v, const Scope& module) {
    return modernbert::prediction_head(b, c, v, module, s);
  };
  switch (in.head) {
    case Head::CausalLM: {
      LmHeadSpec spec{.module = Scope("decoder"), .hidden = hidden, .vocab = vocab,
                      .bias = c.flag({"decoder_bias"}, true)};
      if (c.flag({"tie_word_embeddings"}, true)) spec.tied_weight = (root / "embeddings" / "tok_embeddings")("weight");
      return lm_head(b, prediction_head(x, Scope("lm_head")), "LM_Head", spec);
    }
    case Head::SequenceClassification: {
      auto h = prediction_head(x, Scope("head"));
      b.at(h).dropout = c.number({"classifier_dropout"}, 0.0);
      auto logits = classifier(b, h, "Classifier", Scope("classifier"), hidden, in.num_labels(),
                               c.flag({"classifier_bias"}, false));
      // Every position is scored; the logits of the last non-pad token are kept.
      return b.node(NodeType::Pooler, "Last_Token_Pool", {in.num_labels()}, {logits});
    }
    default:
      return x;
  }
}

}  // namespace
}  // namespace modernbert_decoder_impl

const Family& modernbert_decoder_family() {
  static const Family family{"modernbert-decoder", "models/modernbert_decoder/modeling_modernbert_decoder.py",
                             classes("ModernBertDecoder", {heads::ForCausalLM, heads::ForSequenceClassification}),
                             modernbert_decoder_impl::build};
  return family;
}

}  // namespace neurarch::families
