#include "families/mamba_common.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace neurarch::families::mamba {

std::int64_t time_step_rank(const Config& c, std::int64_t hidden) {
  const auto* raw = c.raw({"time_step_rank"});
  if (!raw || raw->is_string()) return (hidden + 15) / 16;
  return c.dim({"time_step_rank"});
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Stack& s) {
  using namespace blocks;
  const Scope root = in.head == Head::Base ? Scope() : Scope("backbone");
  // No positions to run out of: the sequence is the user's, else the default cap.
  const std::int64_t seq = in.sequence_length(kDefaultSequenceCap);
  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embeddings", s.vocab, s.hidden);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope layer = root / "layers" / i;
    const BlockNames names{i};
    auto h = norm(b, x, names.norm(1, NormKind::RMSNorm), {layer / "norm", NormKind::RMSNorm});
    MambaMixerSpec mixer = s.mixer;
    mixer.module = layer / "mixer";
    h = mamba_mixer(b, h, fmt::format("Mixer_{}", i), mixer);
    x = add(b, h, x, names.add(1));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_RMSNorm", {root / "norm_f", NormKind::RMSNorm});
  if (in.head != Head::CausalLM) return x;
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = s.hidden, .vocab = s.vocab};
  if (s.tie_word_embeddings) head.tied_weight = (root / "embeddings")("weight");
  return lm_head(b, x, "LM_Head", head);
}

Stack v1_stack(const Config& c) {
  Stack s;
  s.vocab = c.dim({"vocab_size"}, 50280);
  s.hidden = c.dim({"hidden_size"}, 768);
  s.layers = c.dim({"num_hidden_layers"}, 32);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  const auto expand = c.number({"expand"}, 2);
  s.mixer = {.version = 1,
             .hidden = s.hidden,
             .inner = c.dim({"intermediate_size"}, static_cast<std::int64_t>(expand * static_cast<double>(s.hidden))),
             .state = c.dim({"state_size"}, 16),
             .conv_kernel = c.dim({"conv_kernel"}, 4),
             .time_step_rank = time_step_rank(c, s.hidden),
             .bias = c.flag({"use_bias"}, false),
             .conv_bias = c.flag({"use_conv_bias"}, true)};
  return s;
}


}  // namespace neurarch::families::mamba
