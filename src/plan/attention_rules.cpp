#include "plan/attention_rules.hpp"

#include <algorithm>

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

namespace {

// Dropout acts on the probabilities as softmax left them, or on the half cast a family makes of its fp32 softmax.
int attention_dropout_mask_bytes(const graph::AttentionAttrs& at, const Setup& s, int compute_bytes, int probabilities) {
  return dropout_mask_bytes(s, at.softmax_fp32 ? compute_bytes : probabilities);
}

}  // namespace

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
  if (at.dropout > 0)
    r.kept.push_back({"attention dropout mask", 1, attention_dropout_mask_bytes(at, s, compute_bytes, probabilities)});
  // The product with v keeps its input in the compute dtype: the dropped probabilities, or a cast of wider ones.
  if (at.dropout > 0 || probabilities > compute_bytes)
    r.kept.push_back({at.dropout > 0 ? "dropped attention probabilities" : "attention probabilities (cast for PV)", 1,
                      compute_bytes});
  return r;
}

ScoreTransients score_transients(const graph::AttentionAttrs& at, const Setup& s, bool autocast, int compute_bytes,
                                 bool masked) {
  const auto rule = score_rule(at, s, autocast, compute_bytes);
  if (rule.fused) return {};
  int kept = 0;
  for (const auto& t : rule.kept) kept += t.count * t.bytes;
  // The eager chain, as score_rule keeps it: QK^T (c), its scaled copy (c), the masked sum (fp32 under autocast, an
  // fp32 mask promoting it), softmax (p), then dropout and a cast to c in the family's order, then PV. The math path
  // runs the same chain in fp32.
  const int c = rule.math_path ? 4 : compute_bytes;
  const int p = rule.math_path ? 4 : rule.kept.front().bytes;
  // The additive mask is the model's (fp32 under autocast, promoting the sum); an unmasked encoder (vision) has none.
  const int sum = masked && autocast && !rule.math_path ? 4 : c;
  const bool dropout = at.dropout > 0;
  // The math path keeps its dropout noise in fp32, like everything it keeps.
  const int mask = !dropout        ? 0
                   : rule.math_path ? 4
                                    : attention_dropout_mask_bytes(at, s, compute_bytes, p);
  // Forward: the product and its scaled copy exist before anything is kept; then the masked sum beside softmax's
  // output. Beyond the whole node's kept scores, the wider of the two moments.
  const int forward = std::max({0, 2 * c - kept, sum + p - kept});
  // Backward, in the order autograd runs it: each step allocates its input's gradient, then frees the gradient it
  // read and what it kept. PV keeps its input apart from the probabilities whenever a dropout or a cast made one.
  int live = 0, peak = 0;
  auto step = [&](int allocated, int freed) {
    live += allocated;
    peak = std::max(peak, live);
    live -= freed;
  };
  const bool cast = p > c;
  const bool pv_keeps_own_input = dropout || cast;
  step(c, pv_keeps_own_input ? c : 0);  // PV: the gradient of its input; frees that input
  int grad = c;
  // Families that ask for an fp32 softmax cast before the dropout; autocast's own cast comes after it.
  const bool cast_first = at.softmax_fp32;
  auto cast_back = [&] { step(p, grad); grad = p; };
  auto dropout_back = [&] { step(grad, grad + mask); };
  if (cast && !cast_first) cast_back();
  if (dropout) dropout_back();
  if (cast && cast_first) cast_back();
  step(p, grad + p);  // softmax: the scores' gradient beside the probabilities and their gradient
  return {forward, peak, p};
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
