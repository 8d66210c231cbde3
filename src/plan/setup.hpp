#pragma once
// What the user plans to run: the training setup every memory and cost figure depends on. The
// vocabulary's names, defaults and spellings are in plan/options.hpp; what each choice changes in
// the timeline is in plan/setup_rules.hpp (one rule per choice, with its source).
#include <cstdint>
#include <string>
#include <vector>

namespace neurarch::plan {

enum class Mode { Full, LoRA, QLoRA };

/// Where the weights, gradients and optimizer state live and what the matmuls compute in.
///  - Fp32: everything fp32.
///  - AmpBf16 / AmpFp16: fp32 master weights, gradients and state; autocast runs matmuls in 16 bits
///    (fp16 adds torch.amp.GradScaler, whose per-step state is a scalar).
///  - Bf16 / Fp16 ("pure half": torchtune, litgpt bf16-true, from_pretrained(torch_dtype=bf16) with a
///    plain loop): weights, gradients and torch's optimizer moments in the parameter dtype.
enum class Precision { Fp32, AmpBf16, AmpFp16, Bf16, Fp16 };

/// The optimizer as it is constructed: its state per trainable parameter and its step's working
/// memory are in setup_rules.cpp.
enum class Optimizer {
  AdamW,           ///< torch.optim.AdamW (foreach or for-loop: Setup::optimizer_foreach)
  AdamWFused,      ///< torch.optim.AdamW(fused=True)
  AdamW8bit,       ///< bitsandbytes AdamW8bit / Adam8bit
  PagedAdamW8bit,  ///< bitsandbytes PagedAdamW8bit: state in CUDA managed memory
  PagedAdamW,      ///< bitsandbytes PagedAdamW (32-bit): state in CUDA managed memory
  Adafactor,       ///< transformers.Adafactor with its defaults
  SGD,             ///< torch.optim.SGD without momentum: no state
  SGDMomentum,     ///< torch.optim.SGD(momentum>0): one buffer
  None,            ///< forward + backward only: no optimizer phase
};

enum class AttentionImpl { SDPA, Eager };

/// How the language-model loss is computed over the logits.
///  - CrossEntropy: transformers' loss: the full logits up-cast to fp32, shifted, log-softmax saved.
///  - Chunked: the loss (and, for LoRA in litgpt, the head) runs per chunk of `loss_chunk` tokens in
///    the compute dtype (litgpt's chunked_cross_entropy, torchtune's CEWithChunkedOutputLoss): no
///    full fp32 copy; each chunk's log-probabilities are kept.
///  - Fused: the head and the loss fused per chunk (Liger's fused linear cross-entropy): the full
///    logits never exist.
///  - LogitsSum: `loss = logits.sum()` (forward/backward benchmarks): no softmax at all.
enum class Loss { CrossEntropy, Chunked, Fused, LogitsSum };

/// Where a quantized base's weights pass on their way to the card: quantized as each is loaded
/// (transformers + bitsandbytes, Lightning's bitsandbytes plugin) or loaded whole in 16 bits first and
/// quantized on the card (quantizing a model already moved there): a load phase.
enum class QuantizedLoad { WhileLoading, LoadThenQuantize };

struct Setup {
  Mode mode = Mode::Full;
  Precision precision = Precision::AmpBf16;
  Optimizer optimizer = Optimizer::AdamW;
  /// torch's AdamW/SGD default: multi-tensor (foreach) on CUDA since torch 2.0; a for-loop before,
  /// and in transformers' own AdamW ("adamw_hf"). The loop's working copies are one parameter's.
  bool optimizer_foreach = true;
  AttentionImpl attention = AttentionImpl::SDPA;
  std::int64_t batch = 1;
  bool grad_checkpointing = false;
  /// zero_grad(set_to_none=False) (torch < 2.0's default): gradient buffers live through the step.
  bool keep_gradients = false;
  /// torch <= 1.10's softmax and log_softmax keep their input for backward besides their result
  /// (_softmax_backward_data took the input tensor; torch 1.11 passes its dtype): data/setups.json's eras.
  bool softmax_saves_input = false;
  /// The loop keeps the model's outputs (the logits) until the next step's forward returns
  /// (`outputs = model(**batch); outputs.loss.backward()`, litgpt's `logits = model(x)`): they live
  /// through backward and beside the next step's. HF Trainer's compute_loss and torchtune's recipes
  /// drop them before backward.
  bool hold_outputs = true;
  /// The framework builds its own module whose LM head is a weight of its own even where the
  /// checkpoint ties it to the embedding (litgpt's GPT copies wte into lm_head when converting).
  bool untie_head = false;
  /// QLoRA also stores the LM head in 4 bits. Lightning's BitsandbytesPrecision (litgpt) swaps every
  /// nn.Linear for bitsandbytes' Linear4bit, the head's included; transformers' bitsandbytes loader keeps
  /// the output embedding in 16 bits (integrations/bitsandbytes.py, get_keys_to_not_convert).
  bool quantize_head = false;
  Loss loss = Loss::CrossEntropy;
  std::int64_t loss_chunk = 128;  ///< tokens per chunk (Chunked, Fused)
  std::int64_t loss_chunks = 0;   ///< > 0: split the step's tokens into this many chunks instead (torchtune)
  std::int64_t lora_rank = 16;
  double lora_dropout = 0.05;
  /// PEFT creates adapters in fp32 (autocast_adapter_dtype=True); torchtune and litgpt keep the base dtype.
  bool lora_fp32_adapters = true;
  /// DoRA: a magnitude vector per adapted linear, and the base weight's column norm each step.
  bool dora = false;
  QuantizedLoad qlora_load = QuantizedLoad::WhileLoading;
  /// NF4 block constants quantized again (bitsandbytes' compress_statistics, the QLoRA paper's double
  /// quantization): 8-bit absmax per 64 weights plus an fp32 scale per 256 blocks; off: an fp32 absmax per 64.
  bool qlora_double_quant = true;
  /// bitsandbytes dequantizes a 4-bit weight to the dtype it was quantized from (QuantState.dtype), then
  /// casts it to the input's (MatMul4Bit: dequantize_4bit(B).to(A.dtype)). Quantized from an fp16 copy
  /// (Lightning's BitsandbytesPrecision) and run in bf16, both copies exist at once.
  bool qlora_quantized_from_fp16 = false;
  /// bitsandbytes before 0.43.2 keeps every 4-bit linear's input for backward (MatMul4Bit's ctx.tensors =
  /// (A, B)) although a frozen weight needs no gradient; 0.43.2 (July 2024, bitsandbytes#1270) keeps none.
  bool qlora_keeps_input = false;
  /// Bytes per element of a dropout's saved mask: CUDA's fused dropout keeps a bool mask (1); 0: the
  /// CPU path, which keeps noise in the dropped tensor's dtype (data/runtime-cpu.json).
  int dropout_mask_bytes = 1;
  /// SDPA with attention dropout has no fused kernel (the CPU): its math path keeps the scores.
  bool sdpa_dropout_runs_math = false;
  /// Autocast runs softmax in fp32: CUDA's autocast lists softmax among its fp32 ops; the CPU's does not, so there a
  /// bf16 score matrix is normalised in bf16 (data/runtime-cpu.json).
  bool autocast_softmax_fp32 = true;
  /// The framework's own model runs q, k and v as one linear (litgpt's `attn`): one autocast cast of its
  /// input and one LoRA dropout for every adapted projection, where transformers' separate q/k/v have three.
  bool fused_qkv = false;
  /// Leaf module names to adapt ("q_proj", "query", "c_attn"); empty: every linear but the head.
  std::vector<std::string> lora_targets;
};

const char* mode_name(Mode m);   ///< "full", "lora", "qlora": the JSON and option spelling
const char* mode_label(Mode m);  ///< "Full fine-tune", "LoRA", "QLoRA": what a person reads
const char* optimizer_name(Optimizer o);
const char* precision_name(Precision p);
const char* loss_name(Loss l);

}  // namespace neurarch::plan
