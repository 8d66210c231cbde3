// Mamba's selective-scan mixer as it trains on a GPU with the mamba-ssm and causal-conv1d kernels (the path
// transformers takes when they are installed). in_proj keeps its input. Version 1's fused mamba_inner_fn keeps
// in_proj's output (x and z), the conv output, x_proj's output, dt, contiguous B and C, the scan output and the
// scan's fp32 states at each 2048-token chunk boundary, and recomputes the rest (out_proj's input included).
// Mamba-2's mamba_split_conv1d_scan_combined keeps in_proj's output, the scan output and the gated norm's rstd per
// group.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int state_space_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& m = *n.ssm;
  const int c = ctx.compute;
  const std::int64_t tokens = x.tokens;
  ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "in_proj input");
  ctx.lora_bottlenecks(a, n, tokens);
  a.saved.push_back({"in_proj output", tokens * m.projection, c});
  if (m.version == 1) {
    constexpr std::int64_t kScanChunk = 2048;  // selective_scan_cuda's chunk length
    a.saved.push_back({"conv1d output", tokens * m.inner, c});
    a.saved.push_back({"x_proj output (dt, B, C)", tokens * (m.time_step_rank + 2 * m.state), c});
    a.saved.push_back({"dt", tokens * m.inner, c});
    a.saved.push_back({"B and C", tokens * 2 * m.state, c});
    a.saved.push_back({"scan output", tokens * m.inner, c});
    a.saved.push_back(
        {"scan chunk states (fp32)", m.inner * ((tokens + kScanChunk - 1) / kScanChunk) * 2 * m.state, 4});
  } else {
    a.saved.push_back({"scan output", tokens * m.inner, c});
    a.saved.push_back({"gated RMSNorm rstd", tokens * m.groups, 4});
  }
  ctx.note_once("ssm", "Mamba mixers are sized for the mamba-ssm / causal-conv1d CUDA kernels; without them "
                       "transformers' sequential scan keeps an [inner x state] state for every token");
  ctx.output_dropout(a, n);
  return c;
}

}  // namespace

const OpSchema state_space_op{.matmul = true, .saved = state_space_saved, .work = nullptr};

}  // namespace neurarch::plan
