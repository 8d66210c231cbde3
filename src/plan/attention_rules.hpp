#pragma once
// The attention product's rules, declared once: what it keeps per score (one [heads, queries, keys] element), which
// the activation plan counts as saved and the cost model as traffic, and its FLOPs. A softmax keeps what
// softmax_kept says, wherever it runs (attention, MoE routers, deformable attention's weights).
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "plan/setup.hpp"

namespace neurarch::plan {

/// One score-shaped tensor: `count` copies of `bytes` each per score element.
struct ScoreTensor {
  std::string what;
  int count = 1;
  int bytes = 0;
};

/// What a softmax keeps for backward: its result, and on torch <= 1.10 its input too (the input as softmax saw
/// it: an fp32 softmax's is the fp32 cast, the same size as the result).
std::vector<ScoreTensor> softmax_kept(const Setup& s, const std::string& what, int bytes);

/// How an attention node's product runs under a setup and what it keeps per score.
struct ScoreRule {
  bool fused = false;      ///< a flash / memory-efficient SDPA kernel: keeps its output and log-sum-exp, no scores
  bool math_path = false;  ///< SDPA's math fallback (no fused kernel takes dropout on the CPU)
  std::vector<ScoreTensor> kept;  ///< per score element; empty when fused
};
/// `autocast` and `compute_bytes` as the step runs (autocast on, and the bytes of matmul outputs).
ScoreRule score_rule(const graph::AttentionAttrs& at, const Setup& s, bool autocast, int compute_bytes);

/// What the product allocates only while it runs, in bytes per score element, beyond the score tensors it keeps
/// (ScoreRule::kept): at its widest moment in forward and in backward. Zero for a fused kernel, whose scores never
/// exist whole.
struct ScoreTransients {
  int forward = 0;
  int backward = 0;          ///< through softmax's backward
  int scores_gradient = 0;   ///< what is left for QK^T's backward: the scores' gradient
};
/// `masked`: the scores get an additive mask (causal, or a text model's padding mask; vision encoders have none).
ScoreTransients score_transients(const graph::AttentionAttrs& at, const Setup& s, bool autocast, int compute_bytes,
                                 bool masked);

/// The product's forward FLOPs per sample (QK^T and PV, 2 x 2 x heads x q x kv x head_dim, halved for a causal
/// matrix where a fused kernel skips the masked half; DeBERTa's c2p / p2c, a [q, relative_span] product per head
/// each) and its memory traffic (the kept score tensors, written in forward and read back in backward).
/// `per_token`: sequences per sample (1 unless the graph batches inside, as windowed attention does).
struct AttentionWork {
  double flops_forward = 0;
  double traffic_bytes = 0;
};
AttentionWork attention_work(const graph::AttentionAttrs& at, double per_token, const ScoreRule& rule);

/// Bytes of a kept dropout mask over values of `dropped_bytes`: CUDA's fused kernel keeps a bool per element, the
/// CPU's multiplies by a noise tensor of the dropped dtype and keeps that (Setup::dropout_mask_bytes 0).
int dropout_mask_bytes(const Setup& s, int dropped_bytes);

}  // namespace neurarch::plan
