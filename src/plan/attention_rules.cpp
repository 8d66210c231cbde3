#include "plan/attention_rules.hpp"

#include <fmt/format.h>

namespace neurarch::plan {

std::vector<ScoreTensor> softmax_kept(const Setup& s, const std::string& what, int bytes) {
  std::vector<ScoreTensor> out{{fmt::format("{} (softmax output)", what), 1, bytes}};
  if (s.softmax_saves_input) out.push_back({fmt::format("{}: softmax input (torch <= 1.10 keeps it)", what), 1, bytes});
  return out;
}

int dropout_mask_bytes(const Setup& s, int dropped_bytes) {
  return s.dropout_mask_bytes > 0 ? s.dropout_mask_bytes : dropped_bytes;
}

ScoreRule score_rule(const graph::AttentionAttrs& at, const Setup& s, bool autocast, int compute_bytes) {
  ScoreRule r;
  const bool sdpa = s.attention == AttentionImpl::SDPA && at.sdpa;
  r.math_path = sdpa && s.sdpa_dropout_runs_math && at.dropout > 0;
  if (sdpa && !r.math_path) {
    // Flash / memory-efficient kernels keep the output and the log-sum-exp, never the scores; their dropout is
    // regenerated from the RNG state.
    r.fused = true;
    return r;
  }
  if (r.math_path) {
    // SDPA's math path runs in fp32 (it up-casts bf16) and keeps the probabilities, the dropout noise and the
    // dropped probabilities.
    r.kept.push_back({"SDPA math path: probabilities, dropout noise, dropped probabilities (fp32)", 3, 4});
    return r;
  }
  // Softmax runs in fp32 under CUDA's autocast, and wherever the family's eager path asks for it.
  const bool fp32_softmax = (autocast && s.autocast_softmax_fp32) || at.softmax_fp32;
  const int probabilities = fp32_softmax ? 4 : compute_bytes;
  r.kept = softmax_kept(s, "attention probabilities", probabilities);
  // Under autocast the additive mask (fp32) promotes the masked sum to fp32; in pure half it stays half.
  if (at.clamped_scores)
    r.kept.push_back({"masked scores (kept by the clamp's backward)", 1, autocast ? 4 : compute_bytes});
  // Dropout acts on the probabilities as softmax left them, or on the half cast a family makes of its fp32 softmax.
  if (at.dropout > 0)
    r.kept.push_back({"attention dropout mask", 1,
                      dropout_mask_bytes(s, at.softmax_fp32 ? compute_bytes : probabilities)});
  // The product with v keeps its input in the compute dtype: the dropped probabilities, or a cast of wider ones.
  if (at.dropout > 0 || probabilities > compute_bytes)
    r.kept.push_back({at.dropout > 0 ? "dropped attention probabilities" : "attention probabilities (cast for PV)", 1,
                      compute_bytes});
  return r;
}

AttentionWork attention_work(const graph::AttentionAttrs& at, double per_token, const ScoreRule& rule) {
  AttentionWork w;
  const double scores = per_token * static_cast<double>(at.heads * at.query_len * at.kv_len);
  w.flops_forward = 4.0 * per_token * static_cast<double>(at.heads * at.query_len * at.kv_len * at.head_dim);
  // Flash kernels skip the masked half of a causal score matrix; eager attention computes it, and so does a
  // reference with no SDPA path.
  if (at.causal && rule.fused) w.flops_forward *= 0.5;
  const int disentangled = (at.c2p ? 1 : 0) + (at.p2c ? 1 : 0);
  w.flops_forward += 2.0 * disentangled * per_token *
                     static_cast<double>(at.heads * at.query_len * at.relative_span * at.head_dim);
  double kept = 0;
  for (const auto& t : rule.kept) kept += t.count * t.bytes;
  w.traffic_bytes = scores * kept * 2.0;
  return w;
}

}  // namespace neurarch::plan
