// Sizes that keep GEMMs and attention kernels off their fast paths. Each finding names the padded
// value and how much of the model's matmul work the size touches, which bounds the speed-up.
#include <fmt/format.h>

#include "lint/rules.hpp"
#include "lint/thresholds.hpp"

namespace neurarch::lint::checks {

using graph::Node;
using graph::NodeType;

namespace {

// The LM head multiplies every position by the [vocab, hidden] matrix; without one, the vocabulary
// is only a lookup table and its size costs no GEMM time.
const Node* lm_head(const Context& c) {
  if (c.role() != Role::Logits) return nullptr;
  return c.first({NodeType::LMHead});
}

double head_share(const Context& c) {
  return c.matmul_share([](const graph::TensorSpec&, const Node& n) { return n.type == NodeType::LMHead; });
}

double ffn_share(const Context& c) {
  return c.matmul_share([](const graph::TensorSpec&, const Node& n) { return n.feed_forward.has_value(); });
}

Hits vocab_rule(const Context& c, std::int64_t multiple, bool only_if_8_aligned) {
  const Node* head = lm_head(c);
  auto vocab = c.vocab();
  if (!head || head->out.empty()) return {};
  const std::int64_t v = vocab ? *vocab : head->out.back();
  if (v % multiple == 0) return {};
  if (only_if_8_aligned && v % limits::kTensorCoreMultiple != 0) return {};
  const std::int64_t p8 = round_up(v, limits::kTensorCoreMultiple), p64 = round_up(v, limits::kTensorCoreTile);
  const std::string key = c.key_for("vocab_size");
  const std::string share = percent(head_share(c));
  if (multiple == limits::kTensorCoreMultiple)
    return {{head->name,
             fmt::format("{} {} is not a multiple of 8: the LM head's [{}, {}] GEMM cannot run fp16/bf16 tensor "
                         "cores at full rate (NVIDIA: dimensions divisible by 8); it holds {} of this model's "
                         "per-token matmul work, the most padding can win back",
                         key, v, v, c.hidden(), share),
             fmt::format("pad {} to {} ({}): model.resize_token_embeddings(len(tokenizer), pad_to_multiple_of=64); "
                         "the extra rows are never produced by the tokenizer (nanoGPT pads GPT-2's 50257 to 50304 for "
                         "this)",
                         key, p64,
                         p8 == p64 ? std::string("a multiple of 64")
                                   : fmt::format("a multiple of 64; {} is the nearest multiple of 8", p8))}};
  return {{head->name,
           fmt::format("{} {} is a multiple of 8 but not of 64: the LM head's GEMM ({} of per-token matmul work) "
                       "leaves its last tile partly empty (NVIDIA: multiples of 64 on A100 and later)",
                       key, v, share),
           fmt::format("pad {} to {} with resize_token_embeddings(..., pad_to_multiple_of=64)", key, p64)}};
}

Hits width_rule(std::int64_t width, const std::string& what, const std::string& key,
                const Node* node, double share, std::int64_t multiple) {
  if (!node || width <= 0 || width % multiple == 0) return {};
  const std::int64_t p8 = round_up(width, limits::kTensorCoreMultiple), p64 = round_up(width, limits::kTensorCoreTile);
  if (multiple == limits::kTensorCoreMultiple)
    return {{node->name,
             fmt::format("{} {} ({}) is not a multiple of 8: the GEMMs it sizes, {} of this model's per-token matmul "
                         "work, cannot run fp16/bf16 tensor cores at full rate (NVIDIA: dimensions divisible by 8)",
                         what, width, key, percent(share)),
             fmt::format("choose {} {} when designing the model; a trained checkpoint keeps its size", key,
                         p8 == p64 ? fmt::format("{} (a multiple of 64)", p64)
                                   : fmt::format("{} (multiple of 8) or {} (multiple of 64)", p8, p64))}};
  return {{node->name,
           fmt::format("{} {} ({}) is a multiple of 8 but not of 64: its GEMMs ({} of per-token matmul work) leave "
                       "the last 64-wide tile partly empty (NVIDIA: multiples of 64 on A100 and later)",
                       what, width, key, percent(share)),
           fmt::format("choose {} {} when designing the model", key, p64)}};
}

Hits hidden_rule(const Context& c, std::int64_t multiple) {
  const Node* a = c.first_attention();
  const Node* at = a ? a : c.token_embedding();
  const std::int64_t hidden = c.hidden();
  if (multiple == limits::kTensorCoreTile && hidden % limits::kTensorCoreMultiple != 0) return {};
  // Every projection reads or writes the model width.
  return width_rule(hidden, "hidden size", c.key_for("hidden_size"), at, 1.0, multiple);
}

Hits intermediate_rule(const Context& c, std::int64_t multiple) {
  const Node* f = c.first_ffn();
  if (!f) return {};
  const std::int64_t width = f->feed_forward->intermediate;
  if (multiple == limits::kTensorCoreTile && width % limits::kTensorCoreMultiple != 0) return {};
  return width_rule(width, "feed-forward width", c.key_for("intermediate_size"), f, ffn_share(c), multiple);
}

}  // namespace

Hits vocab_multiple_of_8(const Context& c) { return vocab_rule(c, limits::kTensorCoreMultiple, false); }
Hits vocab_multiple_of_64(const Context& c) { return vocab_rule(c, limits::kTensorCoreTile, true); }
Hits hidden_multiple_of_8(const Context& c) { return hidden_rule(c, limits::kTensorCoreMultiple); }
Hits hidden_multiple_of_64(const Context& c) { return hidden_rule(c, limits::kTensorCoreTile); }
Hits intermediate_multiple_of_8(const Context& c) { return intermediate_rule(c, limits::kTensorCoreMultiple); }
Hits intermediate_multiple_of_64(const Context& c) { return intermediate_rule(c, limits::kTensorCoreTile); }

Hits head_dim_multiple_of_8(const Context& c) {
  const Node* a = c.first_attention();
  if (!a) return {};
  const std::int64_t d = a->attention->head_dim;
  if (d <= 0 || d % limits::kSdpaHeadDimMultiple == 0) return {};
  return {{a->name,
           fmt::format("head_dim {} is not a multiple of 8: PyTorch SDPA's memory-efficient kernel refuses it in "
                       "half precision and the flash kernel pads q, k and v to {} on every call, so attention falls "
                       "back to slower paths (sdp_utils.cpp)",
                       d, round_up(d, limits::kSdpaHeadDimMultiple)),
           fmt::format("choose {} and {} so that head_dim is {} (or another multiple of 8)", c.key_for("hidden_size"),
                       c.key_for("num_attention_heads"), round_up(d, limits::kSdpaHeadDimMultiple))}};
}

Hits head_dim_over_flash_limit(const Context& c) {
  const Node* a = c.first_attention();
  if (!a || a->attention->head_dim <= limits::kFlashMaxHeadDim) return {};
  return {{a->name,
           fmt::format("head_dim {} is above {}: PyTorch SDPA's flash kernel (and FlashAttention-2) refuse it, so "
                       "attention runs on the memory-efficient or math kernel",
                       a->attention->head_dim, limits::kFlashMaxHeadDim),
           fmt::format("use more, narrower heads (head_dim {} or less) when designing the model",
                       limits::kFlashMaxHeadDim)}};
}

}  // namespace neurarch::lint::checks
