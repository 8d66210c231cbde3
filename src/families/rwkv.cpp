// RWKV-4 (models/rwkv/modeling_rwkv.py + configuration_rwkv.py, transformers 5.24.0; the shared ground truth is
// 4.47.1's, the same tensors): embeddings, then per block a LayerNorm `pre_ln` (block 0 only), `ln1` before the time
// mix (`attention`: time_decay, time_first, time-shift mixes, key/value/receptance to attention_hidden_size,
// output back) and `ln2` before the channel mix (`feed_forward`: time-shift mixes, key to intermediate_size,
// value back, receptance gate), then `ln_out` and the LM `head` (tied to the embeddings only with
// tie_word_embeddings, false by default). attention_hidden_size defaults to hidden_size and intermediate_size to
// 4 x hidden_size. No biases anywhere but the LayerNorms'. The WKV CUDA kernel refuses sequences longer than
// context_length; the token-by-token CPU path takes any.
#include <fmt/format.h>

#include "blocks/recurrent.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace rwkv_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 50277);
  const std::int64_t hidden = c.dim({"hidden_size"}, 4096);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 32);
  const std::int64_t width = c.dim({"attention_hidden_size"}, hidden);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 4 * hidden);
  const std::int64_t context = c.dim({"context_length"}, 1024);
  const bool tied = c.flag({"tie_word_embeddings"}, false);

  const Scope root = in.head == Head::Base ? Scope() : Scope("rwkv");
  const std::int64_t seq = in.sequence_length(context);
  if (seq > context)
    b.note(fmt::format("sequence of {} tokens is past context_length ({}): the WKV CUDA kernel refuses it, the "
                       "slow token-by-token path runs it",
                       seq, context));
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings", vocab, hidden);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope block = root / "blocks" / i;
    const BlockNames names{i};
    int k = 0;
    if (i == 0) x = norm(b, x, names.norm(++k, NormKind::LayerNorm), {block / "pre_ln"});
    auto h = norm(b, x, names.norm(++k, NormKind::LayerNorm), {block / "ln1"});
    h = wkv_time_mix(b, h, fmt::format("Time_Mix_{}", i), {.hidden = hidden, .width = width, .module = block / "attention"});
    x = add(b, h, x, names.add(1));
    h = norm(b, x, names.norm(++k, NormKind::LayerNorm), {block / "ln2"});
    h = wkv_channel_mix(b, h, fmt::format("Channel_Mix_{}", i), block / "feed_forward", hidden, intermediate);
    x = add(b, h, x, names.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "ln_out"});
  if (in.head != Head::CausalLM) return x;
  LmHeadSpec head{.module = Scope("head"), .hidden = hidden, .vocab = vocab};
  if (tied) head.tied_weight = (root / "embeddings")("weight");
  return lm_head(b, x, "LM_Head", head);
}

}  // namespace
}  // namespace rwkv_impl

const Family& rwkv_family() {
  static const Family family{"rwkv", "models/rwkv/modeling_rwkv.py", classes("Rwkv", {heads::ForCausalLM}), rwkv_impl::build};
  return family;
}

}  // namespace neurarch::families
