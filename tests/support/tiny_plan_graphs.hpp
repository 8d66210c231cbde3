#pragma once
// A graph small enough to check planner figures by hand, and a runtime that adds nothing to them.
#include <cstdint>

#include "blocks/blocks.hpp"
#include "plan/hardware.hpp"

namespace neurarch::testing {

// tokens -> embedding(vocab x hidden) -> FFN hidden->intermediate->hidden (gelu) -> LM head hidden->vocab (untied
// unless `tied`): a 2-layer MLP LM, by default 10 x 8 with an intermediate of 16.
inline graph::Graph tiny_mlp_lm(std::int64_t seq, bool tied = false, std::int64_t vocab = 10, std::int64_t hidden = 8,
                                std::int64_t intermediate = 16) {
  graph::GraphBuilder b;
  auto x = b.input({seq}, "tokens");
  x = blocks::token_embedding(b, x, "Token_Embedding", graph::Scope("embed"), vocab, hidden);
  b.set_block(0);
  x = blocks::feed_forward(b, x, "FFN_0",
                           {.hidden = hidden, .intermediate = intermediate, .activation = "gelu",
                            .module = graph::Scope("mlp"), .up = graph::Scope("mlp.fc1"), .down = graph::Scope("mlp.fc2")});
  b.set_block(-1);
  x = blocks::lm_head(b, x, "LM_Head",
                      {.module = graph::Scope("lm_head"), .hidden = hidden, .vocab = vocab,
                       .tied_weight = tied ? "embed.weight" : ""});
  return b.finish(x);
}

// tokens -> embedding(10 x 16) -> one eager-capable attention (2 heads of 8, causal) -> LM head 16->10.
inline graph::Graph tiny_attention_lm(std::int64_t seq, bool softmax_fp32) {
  graph::GraphBuilder b;
  auto x = b.input({seq}, "tokens");
  x = blocks::token_embedding(b, x, "Token_Embedding", graph::Scope("embed"), 10, 16);
  b.set_block(0);
  const graph::Scope attn("attn");
  x = blocks::attention(b, x, "Attention_0",
                        {.hidden = 16, .heads = 2, .causal = true, .module = attn, .q = attn / "q", .k = attn / "k",
                         .v = attn / "v", .o = attn / "o", .softmax_fp32 = softmax_fp32});
  b.set_block(-1);
  x = blocks::lm_head(b, x, "LM_Head", {.module = graph::Scope("lm_head"), .hidden = 16, .vocab = 10});
  return b.finish(x);
}

// No allocator rounding, fragmentation, workspace or context: every figure is a plain product.
inline plan::Runtime exact_runtime() {
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

}  // namespace neurarch::testing
