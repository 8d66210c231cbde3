// A recurrent mixer (graph::RecurrentAttrs) as transformers 5.24 trains it: Griffin's RG-LRU, RWKV-4's WKV, xLSTM's
// mLSTM and MiniMax's lightning attention. Each cell's kept tensors and its scan's FLOPs are listed with it.
#include <algorithm>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// A chunked cell's sizes per sample: token-heads, the chunk length, q (or k) elements, the chunks and the value head
// width.
struct ChunkedSizes {
  std::int64_t token_heads, chunk, qk, chunks, head_dim;
};
ChunkedSizes chunked_sizes(const graph::RecurrentAttrs& r, std::int64_t tokens) {
  const std::int64_t chunk = std::max<std::int64_t>(r.chunk, 1);
  return {tokens * r.heads, chunk, tokens * r.heads * r.key_head_dim, (tokens + chunk - 1) / chunk,
          r.width / std::max<std::int64_t>(r.heads, 1)};
}

int recurrent_mixer_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const std::int64_t tokens = x.tokens;
  const auto& r = *n.recurrent;
  const int c = ctx.compute;
  if (r.token_shift)
    token_shift_inputs(ctx, a, x);
  else
    ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "input projections' input");
  ctx.lora_bottlenecks(a, n, tokens);
  const std::int64_t w = tokens * r.width;
  const int wide = ctx.autocast ? 4 : c;  // terms an fp32 parameter promotes under autocast
  switch (r.cell) {
    case graph::RecurrentCell::RgLru:
      // Griffin's recurrent block (models/recurrent_gemma, RecurrentGemmaRecurrentBlock and RecurrentGemmaRglru),
      // eager PyTorch with a Python loop over tokens: the y branch keeps its activation's input and output; the
      // conv1d keeps its input; the per-head gates (baddbmm) keep the conv output (a view of it), sigmoid their
      // outputs; -8 r keeps itself for the product with softplus(recurrent_param); the decay
      // a = exp(-8 r softplus(.)) and a^2 (fp32 under autocast, promoted by the fp32 parameter) keep their
      // outputs, the clipped sqrt(1 - a^2) its input; the gamma normalisation keeps x * input_gate and the
      // normaliser; each loop step keeps its slice of the reset-masked fp32 decay and the previous fp32 state;
      // the product with the y branch keeps both, and linear_out its input. Checked on CPU in fp32 (torch
      // 2.13, saved_tensors_hooks): 16 values per token and channel, as here.
      ctx.activation(a, n.activation, w);
      a.saved.push_back({"y branch (activation output)", w, c});
      a.saved.push_back({"conv1d input", w, c});
      a.saved.push_back({"RG-LRU: conv output (the gates' input)", w, c});
      a.saved.push_back({"RG-LRU: input and recurrent gates (sigmoid outputs)", 2 * w, c});
      a.saved.push_back({"RG-LRU: -8 x recurrent gate (for the softplus product)", w, c});
      a.saved.push_back({"RG-LRU: decay a and a^2 (exp outputs)", 2 * w, wide});
      a.saved.push_back({"RG-LRU: sqrt(1 - a^2) input", w, wide});
      a.saved.push_back({"RG-LRU: gated input and its normaliser", 2 * w, c});
      a.saved.push_back({"RG-LRU scan: reset-masked decay and every previous state (fp32)", 2 * w, 4});
      a.saved.push_back({"scan output (for the y-branch product)", w, c});
      break;
    case graph::RecurrentCell::Wkv:
      // RWKV-4's time mix (models/rwkv, RwkvSelfAttention) with the WKV CUDA kernel (RwkvLinearAttention saves
      // time_decay, time_first, key, value and its output; fp16 inputs are cast to fp32 first); receptance keeps
      // its sigmoid output for the product, which keeps the kernel output too.
      a.saved.push_back({"WKV: key and value", 2 * w, c});
      a.saved.push_back({"WKV output", w, c});
      a.saved.push_back({"receptance (sigmoid output)", w, c});
      ctx.note_once("wkv", "RWKV's WKV is sized for its CUDA kernel (kernels-community/rwkv); without it "
                           "transformers' token-by-token loop keeps several fp32 tensors per token and channel");
      break;
    case graph::RecurrentCell::Mlstm: {
      // xLSTM's mLSTM layer (models/xlstm, xLSTMLayer) with the chunkwise native-autograd kernel
      // (mlstm_chunkwise_native_autograd): the soft-capped gates, logsigmoid, the cumulative decays, the
      // stabilising maxima and their indices are about 16 fp32 values per token and head; per head and chunk of C
      // tokens the intra-chunk decay matrix D (exp output), the scores S = q k^T and their product M are [C, C];
      // q and k are kept by q k^T, the gated q and k by the state products, v and the numerator by the products
      // and the division; the recurrent pass keeps every chunk's [dk, dv] memory and [dk] normaliser. The
      // multi-head LayerNorm runs in fp32 (its input, centred input and rstd); its output, the output gate's
      // sigmoid output and the gated heads are kept by the weight and gate products, and out_proj its input.
      // Checked on CPU in fp32 (torch 2.13, saved_tensors_hooks, 128 and 256 tokens): within 0.1 %.
      const auto [h, chunk, qk, chunks, head_dim] = chunked_sizes(r, tokens);
      a.saved.push_back({"mLSTM gates, decays and stabilisers (fp32)", 16 * h, 4});
      a.saved.push_back({"mLSTM: q, k and their gated copies", 4 * qk, c});
      a.saved.push_back({"mLSTM: v and the numerator", 2 * w, c});
      a.saved.push_back({"mLSTM: intra-chunk decay, scores and their product", 3 * h * chunk, c});
      a.saved.push_back({"mLSTM: chunk memories and normalisers",
                         2 * chunks * r.heads * r.key_head_dim * (head_dim + 1), c});
      a.saved.push_back({"multi-head LayerNorm: fp32 input, centred input and rstd", 2 * w + h, 4});
      a.saved.push_back({"LayerNorm output, weighted heads and the output gate (sigmoid output)", 3 * w, c});
      break;
    }
    case graph::RecurrentCell::Lightning: {
      // Lightning attention (models/minimax, MiniMaxLightningAttention), eager PyTorch block by block: SiLU keeps
      // qkv_proj's output and q, k, v are views of its output, which the products keep; per block of C tokens
      // the intra-block scores times the decay mask ([C, C] per head), q and k scaled by their decays, and the
      // running [dk, dv] key-value state of every block. The RMSNorm over all heads keeps its fp32 input, its
      // rstd and the normalised input; sigmoid(output_gate(x)) keeps its output and the product the normed heads.
      // Checked on CPU in fp32 (torch 2.13, saved_tensors_hooks, 128 and 256 tokens): 1.6 % above the measurement.
      const auto [h, chunk, qk, chunks, head_dim] = chunked_sizes(r, tokens);
      a.saved.push_back({"lightning: qkv_proj output (SiLU input) and q, k, v (SiLU output)", 2 * (2 * qk + w), c});
      a.saved.push_back({"lightning: decayed q and k", 2 * qk, c});
      a.saved.push_back({"lightning: intra-block decayed scores", h * chunk, c});
      a.saved.push_back({"lightning: every block's key-value state", chunks * r.heads * r.key_head_dim * head_dim, c});
      a.saved.push_back({"RMSNorm: fp32 input and rstd", w + tokens, 4});
      a.saved.push_back({"RMSNorm: normalised input", w, c});
      a.saved.push_back({"output gate (sigmoid output) and normed heads", 2 * w, c});
      break;
    }
  }
  ctx.output_projection_input(a, n, w, "output projection input");
  ctx.output_dropout(a, n);
  return c;
}

// The scan itself (the projections, the conv1d and RG-LRU's per-head gates are matmul weights, costed by weight).
// Element-wise cells, per token and channel: RG-LRU's gate, decay and normalisation arithmetic and the state update
// (about 20), WKV's exponentials and weighted sums (about 12). Chunked cells, per token and head with chunk C: the
// intra-chunk scores and their product with v (2 C (dk + dv)), the output from the chunk's state (2 dk dv) and the
// state update (2 dk dv). Backward is twice that.
OpWork recurrent_mixer_work(const OpCostInput& x) {
  const auto& r = *x.node.recurrent;
  const double tokens = x.tokens;
  const double width = static_cast<double>(r.width), heads = static_cast<double>(std::max<std::int64_t>(r.heads, 1));
  const double dk = static_cast<double>(r.key_head_dim), dv = width / heads, chunk = static_cast<double>(r.chunk);
  double core = 0;
  switch (r.cell) {
    case graph::RecurrentCell::RgLru: core = 20.0 * tokens * width; break;
    case graph::RecurrentCell::Wkv: core = 12.0 * tokens * width; break;
    case graph::RecurrentCell::Mlstm:
    case graph::RecurrentCell::Lightning: core = tokens * heads * (2.0 * chunk * (dk + dv) + 4.0 * dk * dv); break;
  }
  return {.flops_forward = core, .flops_backward = 2.0 * core, .traffic_bytes = 0};
}

}  // namespace

const OpSchema recurrent_mixer_op{.matmul = true, .saved = recurrent_mixer_saved, .work = recurrent_mixer_work};

}  // namespace neurarch::plan
