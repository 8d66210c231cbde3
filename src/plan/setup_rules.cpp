#include "plan/setup_rules.hpp"

#include <algorithm>

namespace neurarch::plan {

PrecisionRule precision_rule(Precision p) {
  switch (p) {
    // Plain fp32: no casts; a LoRA base stays in the 16-bit dtype it was loaded in (as before).
    case Precision::Fp32: return {4, 4, 2, false};
    // torch.autocast: fp32 master weights, 16-bit matmuls; GradScaler's state is a scalar.
    case Precision::AmpBf16:
    case Precision::AmpFp16: return {4, 2, 2, true};
    // Pure half: the model is in 16 bits end to end (torch.optim keeps moments in the param dtype).
    case Precision::Bf16:
    case Precision::Fp16: return {2, 2, 2, false};
  }
  return {4, 2, 2, true};
}

int model_parameter_bytes(const Setup& s) {
  const auto rule = precision_rule(s.precision);
  return s.mode == Mode::Full ? rule.parameter_bytes : rule.frozen_base_bytes;
}

int compute_bytes(const Setup& s) {
  const auto rule = precision_rule(s.precision);
  return rule.autocast ? rule.compute_bytes : model_parameter_bytes(s);
}

int adapter_bytes(const Setup& s) {
  // PEFT: LoraModel(autocast_adapter_dtype=True) up-casts 16-bit adapters to fp32 (peft/tuners/tuners_utils.py).
  return s.lora_fp32_adapters ? 4 : precision_rule(s.precision).frozen_base_bytes;
}

QuantizedBaseRule quantized_base_rule(const Setup& s) {
  // bitsandbytes NF4 (functional.quantize_4bit, blocksize 64): two weights per byte and an fp32 absmax
  // per 64-weight block (4/64 byte per weight); double quantization stores the absmax in 8 bits with an
  // fp32 scale per 256 blocks (1/64 + 4/(64 * 256): the QLoRA paper's 0.127 bits per weight).
  const double constants = s.qlora_double_quant ? 1.0 / 64.0 + 4.0 / (64.0 * 256.0) : 4.0 / 64.0;
  // dequantize_4bit allocates the weight in QuantState.dtype; MatMul4Bit then casts it to the input's
  // dtype (bitsandbytes autograd/_functions.py), a second copy unless the dtypes agree.
  const auto compute = precision_rule(s.precision);
  const bool fp16_compute = s.precision == Precision::Fp16 || s.precision == Precision::AmpFp16;
  const int dequant = s.qlora_quantized_from_fp16 && !fp16_compute ? 2 + compute.compute_bytes : compute.compute_bytes;
  return {0.5 + constants, dequant};
}

OptimizerMemory optimizer_memory(Optimizer o, const graph::Shape& shape, std::int64_t n, int pb) {
  switch (o) {
    // torch.optim.AdamW: exp_avg and exp_avg_sq are zeros_like(param) (the parameter's dtype). The
    // foreach step materialises sqrt(exp_avg_sq) (_foreach_sqrt), the for-loop one denominator per
    // tensor; transformers' AdamW ("adamw_hf") is such a loop.
    case Optimizer::AdamW: return {2 * n * pb, n * pb};
    case Optimizer::AdamWFused: return {2 * n * pb, 0};
    // bitsandbytes 8-bit: two uint8 moments plus an fp32 absmax per 2048-value block for tensors of at
    // least min_8bit_size = 4096 values; smaller ones keep 32-bit state (bitsandbytes/optim/optimizer.py).
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit:
      return {n >= 4096 ? 2 * n + (n + 2047) / 2048 * 8 : 8 * n, 0};
    case Optimizer::PagedAdamW: return {8 * n, 0};
    case Optimizer::Adafactor: {
      // transformers.Adafactor defaults (beta1=None: no first moment; factored second moment for
      // tensors of 2+ dims: a row and a column statistic, in fp32 because a 16-bit grad is up-cast
      // first). The step holds the fp32 gradient (a copy when the parameter is 16-bit), grad**2 and
      // the reconstructed second moment for one tensor at a time.
      std::int64_t state = 0;
      if (shape.size() >= 2) {
        const std::int64_t cols = shape.back(), rows = n / std::max<std::int64_t>(cols, 1);
        const std::int64_t lead = rows / std::max<std::int64_t>(shape[shape.size() - 2], 1);
        state = (rows + lead * cols) * 4;
      } else {
        state = n * 4;
      }
      return {state, 2 * n * 4 + (pb < 4 ? n * 4 : 0)};
    }
    case Optimizer::SGD: return {0, 0};
    case Optimizer::SGDMomentum: return {n * pb, 0};  // momentum_buffer = clone(grad)
    case Optimizer::None: return {0, 0};
  }
  return {2 * n * pb, n * pb};
}

bool optimizer_state_paged(Optimizer o, std::int64_t elements) {
  // bitsandbytes' Optimizer8bit.get_state_buffer pages a tensor's state only from 1e5 values on; smaller
  // tensors (most LoRA A/B matrices) get torch.zeros_like on the device, inside the caching allocator.
  constexpr std::int64_t kPagedMinElements = 100000;
  return (o == Optimizer::PagedAdamW8bit || o == Optimizer::PagedAdamW) && elements >= kPagedMinElements;
}
bool has_optimizer_step(Optimizer o) { return o != Optimizer::None; }
bool temporaries_per_group(const Setup& s) { return s.optimizer_foreach && s.optimizer != Optimizer::Adafactor; }

double optimizer_traffic_bytes(Optimizer o, int pb) {
  // Read param, grad and state, write param and state (AdamW: 7 tensors of pb bytes); the foreach
  // step adds a write and read of its temporary; 8-bit moments move 1 byte each.
  switch (o) {
    case Optimizer::AdamW: return 9.0 * pb;
    case Optimizer::AdamWFused: return 7.0 * pb;
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: return 3.0 * pb + 4;
    case Optimizer::PagedAdamW: return 7.0 * pb;
    case Optimizer::Adafactor: return 3.0 * pb + 8;
    case Optimizer::SGD: return 3.0 * pb;
    case Optimizer::SGDMomentum: return 5.0 * pb;
    case Optimizer::None: return 0;
  }
  return 9.0 * pb;
}

LossMemory loss_memory(const Setup& s, std::int64_t tokens, std::int64_t vocab, int c) {
  const std::int64_t full = tokens * vocab;
  std::int64_t chunk_tokens = s.loss_chunks > 0 ? (tokens + s.loss_chunks - 1) / s.loss_chunks : s.loss_chunk;
  chunk_tokens = std::clamp<std::int64_t>(chunk_tokens, 1, std::max<std::int64_t>(tokens, 1));
  const std::int64_t chunk = chunk_tokens * vocab;
  switch (s.loss) {
    // transformers' ForCausalLMLoss: half logits up-cast to fp32 (a copy that goes once log_softmax has
    // run; fp32 logits are used as they are), log_softmax saved in fp32; since 4.46 the labels are shifted,
    // not the logits, so no shifted copy is made (CPU-measured, docs/cpu-memory.md). Its backward peaks in
    // log_softmax's: the saved log-probabilities, nll_loss's gradient and log_softmax's, all fp32 (GPT-2 at
    // 1,024 tokens, fp32 and amp-bf16 alike: three fp32 logits-sized tensors, tools/measure_cpu/breakdown.py).
    // Those go before the head's backward, which reads the gradient cast back to the compute dtype.
    // torch <= 1.10's log_softmax keeps its input as well: the up-cast copy then lives until backward.
    case Loss::CrossEntropy:
      if (s.softmax_saves_input && c < 4) return {full * c, 2 * full * 4, 0, 4 * full * 4, full * c};
      return {full * c, full * 4, c < 4 ? full * 4 : 0, 3 * full * 4, full * c};
    // Chunked CE in the compute dtype (litgpt chunked_cross_entropy, torchtune's chunked output loss):
    // each chunk's log-probabilities are kept; one chunk is up-cast at a time; the logits' gradient
    // is assembled at full size.
    case Loss::Chunked: return {full * c, full * c, chunk * 4, 2 * full * c + chunk * 4, full * c};
    // Fused linear cross-entropy (Liger): one chunk of logits and its gradient exist at a time, and the head's
    // gradient is made chunk by chunk inside the loss.
    case Loss::Fused: return {0, 0, chunk * (c + 4), chunk * (c + 4), 0};
    // loss = logits.sum(): the all-ones gradient is an expanded scalar until the head's backward makes it
    // contiguous for its matmuls.
    case Loss::LogitsSum: return {full * c, 0, 0, 0, full * c};
  }
  return {full * c, full * 4, 2 * full * 4, 3 * full * 4, full * c};
}

}  // namespace neurarch::plan
