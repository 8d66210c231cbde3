// What an op allocates only while it runs, declared with the op (plan/ops/ schemas' transients), and the step's
// moments that read it, checked by hand on graphs small enough to count: eager attention's score temporaries and
// their gradients (DINOv2 at 1,025 tokens planned its backward 16 % under on the CPU without them), the loss's
// backward before the head's gradient, and the batch the loop holds.
#include <gtest/gtest.h>

#include "plan/activations.hpp"
#include "plan/attention_rules.hpp"
#include "plan/memory.hpp"
#include "plan/weights.hpp"
#include "support/tiny_plan_graphs.hpp"

namespace neurarch {
namespace {

using plan::AttentionImpl;
using plan::MemoryModel;
using plan::Precision;
using testing::exact_runtime;

std::int64_t term(const plan::MemoryPlan& m, const std::string& phase, const std::string& name) {
  for (const auto& p : m.phases)
    if (p.phase == phase)
      for (const auto& t : p.terms)
        if (t.name == name) return t.bytes;
  return -1;
}

const plan::PhaseMemory& phase(const plan::MemoryPlan& m, const std::string& name) {
  for (const auto& p : m.phases)
    if (p.phase == name) return p;
  throw std::runtime_error("no phase " + name);
}

plan::Setup eager(Precision p) {
  plan::Setup s;
  s.mode = plan::Mode::Full;
  s.precision = p;
  s.attention = AttentionImpl::Eager;
  return s;
}

TEST(OpTransients, ScoresAndTheirGradientsStepByStep) {
  graph::AttentionAttrs at;
  at.heads = 2;
  at.head_dim = 4;
  // fp32, no dropout, no mask (a vision encoder): QK^T and its scaled copy (8) beside nothing kept yet, then
  // softmax's output (4, kept); backward: PV's input gradient (4), then the scores' (4) beside the probabilities.
  auto t = plan::score_transients(at, eager(Precision::Fp32), false, 4, false);
  EXPECT_EQ(t.forward, 2 * 4 - 4);
  EXPECT_EQ(t.backward, 4 + 4);
  EXPECT_EQ(t.scores_gradient, 4);
  // CUDA autocast, BERT-style dropout on fp32 probabilities (kept: 4 + bool mask 1 + bf16 cast for PV 2 = 7):
  // PV's gradient (2) frees the cast; the cast's backward makes fp32 (4); the dropout's (4) frees the mask and
  // the 4 it read; softmax's (4). Widest: 6 at the dropout. Forward: the masked sum in fp32 beside softmax's 4.
  auto dropped = at;
  dropped.dropout = 0.1;
  t = plan::score_transients(dropped, eager(Precision::AmpBf16), true, 2, true);
  EXPECT_EQ(t.forward, 4 + 4 - 7);
  EXPECT_EQ(t.backward, 6);
  // A family's fp32 softmax cast back before PV (Llama), no dropout (kept 4 + 2): PV's gradient (2) frees the
  // cast; the cast's backward (4); softmax's (4) beside it: 6.
  auto llama = at;
  llama.softmax_fp32 = true;
  t = plan::score_transients(llama, eager(Precision::AmpBf16), true, 2, true);
  EXPECT_EQ(t.backward, 6);
  EXPECT_EQ(t.forward, 4 + 4 - 6);
  // The CPU's autocast keeps everything in bf16 (probabilities, noise, dropped: 6); its widest backward moment is
  // the dropout's, with PV's gradient and its own beside the probabilities and the noise: 2 more.
  auto cpu = eager(Precision::AmpBf16);
  cpu.autocast_softmax_fp32 = false;
  cpu.dropout_mask_bytes = 0;
  t = plan::score_transients(dropped, cpu, true, 2, true);
  EXPECT_EQ(t.backward, 2);
  EXPECT_EQ(t.forward, 0);
  // SDPA with dropout on the CPU runs the math path, all in fp32 (probabilities, noise, dropped: 12): PV's
  // gradient (4) frees the dropped copy, the dropout's (4) frees the noise and the 4 it read, softmax's (4).
  auto math = cpu;
  math.attention = AttentionImpl::SDPA;
  math.sdpa_dropout_runs_math = true;
  t = plan::score_transients(dropped, math, true, 2, true);
  EXPECT_EQ(t.backward, 4);
  EXPECT_EQ(t.forward, 0);
  // A fused kernel never holds the scores.
  auto sdpa = eager(Precision::AmpBf16);
  sdpa.attention = AttentionImpl::SDPA;
  t = plan::score_transients(at, sdpa, true, 2, true);
  EXPECT_EQ(t.forward, 0);
  EXPECT_EQ(t.backward, 0);
}

TEST(OpTransients, EagerAttentionsWidestMomentsInTheStep) {
  // 64 tokens, 2 heads of 8, fp32, causal: 8,192 scores per sample.
  const auto g = testing::tiny_attention_lm(64, false);
  const auto s = eager(Precision::Fp32);
  const auto acts = plan::saved_activations(g, s, plan::weight_roles(g, s));
  const graph::Node* attention = nullptr;
  for (const auto& n : g.nodes)
    if (n.name == "Attention_0") attention = &n;
  ASSERT_NE(attention, nullptr);
  const auto& a = acts.nodes.at(static_cast<std::size_t>(attention->index));
  const std::int64_t scores = 2 * 64 * 64;
  EXPECT_EQ(a.forward_transient, scores * 4);
  // Through softmax's backward: 8 bytes a score and v's gradient (64 x 2 x 8 fp32); QK^T's adds q's and k's to the
  // scores' gradient alone, which is less here.
  const std::int64_t v_gradient = 64 * 2 * 8 * 4, qk_gradients = 2 * 64 * 2 * 8 * 4;
  EXPECT_EQ(a.backward_transient, std::max(scores * 8 + v_gradient, scores * 4 + v_gradient + qk_gradients));
  // The q, k and v weights' gradients (3 x 16 x 16 fp32), which the step counts with the node, come after it.
  EXPECT_EQ(a.gradients_after, 3 * 16 * 16 * 4);

  MemoryModel m(g, s, exact_runtime());
  const auto plan = m.at(2);
  // The scores at the last attention outgrow what the end of the forward holds (small logits follow).
  EXPECT_EQ(phase(plan, "forward_end").at, "Attention_0");
  EXPECT_EQ(term(plan, "forward_end", "op_transients"), 2 * a.forward_transient);
  EXPECT_EQ(phase(plan, "backward").at, "Attention_0");
  EXPECT_EQ(term(plan, "backward", "op_transients"), 2 * a.backward_transient - a.gradients_after);
  // SDPA holds no scores: only the q, k and v gradients it hands back.
  auto fused = s;
  fused.attention = AttentionImpl::SDPA;
  const auto f = plan::saved_activations(g, fused, plan::weight_roles(g, fused));
  EXPECT_EQ(f.nodes.at(static_cast<std::size_t>(attention->index)).forward_transient, 0);
  EXPECT_EQ(f.nodes.at(static_cast<std::size_t>(attention->index)).backward_transient, v_gradient + qk_gradients);
}

TEST(OpTransients, AnMlpHandsBackItsIntermediatesGradient) {
  // GELU MLP 8 -> 16 -> 8 over 4 tokens in fp32: one intermediate gradient at a time beyond what it keeps.
  const auto g = testing::tiny_mlp_lm(4);
  const auto s = eager(Precision::Fp32);
  const auto acts = plan::saved_activations(g, s, plan::weight_roles(g, s));
  int checked = 0;
  for (const auto& n : g.nodes) {
    if (n.name != "FFN_0") continue;
    EXPECT_EQ(acts.nodes.at(static_cast<std::size_t>(n.index)).backward_transient, 4 * 16 * 4);
    // Before the up projection's weight gradient (8 x 16 fp32) exists.
    EXPECT_EQ(acts.nodes.at(static_cast<std::size_t>(n.index)).gradients_after, 8 * 16 * 4);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

TEST(LossBackward, TheLossPeaksBeforeTheHeadsGradientExists) {
  // 64 tokens over a 1,000-word vocabulary: transformers' loss backward holds the saved log-probabilities, nll_loss's
  // gradient and log_softmax's, three fp32 tensors whatever the compute dtype, and no weight gradient yet.
  const auto g = testing::tiny_mlp_lm(64, false, 1000);
  const std::int64_t full = 64 * 1000;
  for (const auto p : {Precision::Fp32, Precision::AmpBf16}) {
    MemoryModel m(g, eager(p), exact_runtime());
    const auto plan = m.at(1);
    EXPECT_EQ(phase(plan, "backward").at, "LM_Head");
    EXPECT_EQ(term(plan, "backward", "loss_buffers"), 3 * full * 4);
    EXPECT_EQ(term(plan, "backward", "gradients"), 0);
    EXPECT_EQ(m.loss_at(1).head_gradient, full * (p == Precision::Fp32 ? 4 : 2));
  }
}

TEST(ModelInputs, TheLoopsBatchLivesThroughTheStep) {
  // Token ids in int64 through forward, backward and the optimizer step.
  const auto g = testing::tiny_mlp_lm(64);
  MemoryModel m(g, eager(Precision::Fp32), exact_runtime());
  const auto plan = m.at(3);
  for (const char* p : {"forward_end", "backward", "optimizer_step"})
    EXPECT_EQ(term(plan, p, "model_inputs"), 3 * 64 * 8) << p;
}

}  // namespace
}  // namespace neurarch
