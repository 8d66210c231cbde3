// THE rule table: every rule the verifier runs, with its id, group and severity. Adding a rule is
// one function in a rules_*.cpp file, one row here and a test both ways in tests/unit/lint_*_test.cpp.
#include "lint/rules.hpp"

namespace neurarch::lint {

namespace r = checks;

const std::vector<Rule>& rule_table() {
  // clang-format off
  static const std::vector<Rule> table{
      // will-not-run: the model cannot be built, loaded or run as configured
      {{"graph-forward", "will-not-run", "error", "a node of the traced graph cannot run on its input"}, r::graph_forward},
      {{"heads-divide-hidden", "will-not-run", "error", "hidden size divides evenly into attention heads"}, r::heads_divide_hidden},
      {{"kv-heads-divide-heads", "will-not-run", "error", "key/value heads divide the query heads"}, r::kv_heads_divide_heads},
      {{"head-dim-ignored", "will-not-run", "warn", "a head_dim key the family does not honour"}, r::head_dim_ignored},
      {{"special-token-outside-vocab", "will-not-run", "error", "special-token ids are rows of the embedding"}, r::special_token_outside_vocab},
      {{"tied-embedding-shape", "will-not-run", "error", "tied weights have the same shape"}, r::tied_embedding_shape},
      {{"moe-top-k", "will-not-run", "error", "MoE routers pick between 1 and the expert count"}, r::moe_top_k},
      {{"sliding-window-exceeds-context", "will-not-run", "warn", "a sliding window shorter than the context"}, r::sliding_window_exceeds_context},
      {{"sliding-window-unused", "will-not-run", "warn", "a declared sliding window that no layer uses"}, r::sliding_window_unused},
      {{"rope-scaling-unread", "will-not-run", "warn", "rope_scaling on a model without rotary positions"}, r::rope_scaling_unread},
      {{"rope-scaling-malformed", "will-not-run", "error", "rope_scaling blocks transformers accepts"}, r::rope_scaling_malformed},
      {{"patch-grid-required", "will-not-run", "error", "pixel-reconstruction classes need images the patches tile"}, r::patch_grid_required},
      {{"patch-grid-drops-pixels", "will-not-run", "warn", "images the patch grid tiles without remainder"}, r::patch_grid_drops_pixels},
      {{"mim-stride-mismatch", "will-not-run", "error", "masked-image-modeling decoders upsample by the patch size"}, r::mim_stride_mismatch},
      {{"activation-unknown", "will-not-run", "error", "activation names transformers knows"}, r::activation_unknown},
      {{"torch-dtype-unknown", "will-not-run", "warn", "torch_dtype names a torch dtype"}, r::torch_dtype_unknown},
      // numerics: runs, but computes something other than what was trained
      {{"fp16-on-bf16-model", "numerics", "warn", "float16 declared on a family trained in bfloat16"}, r::fp16_on_bf16_model},
      {{"norm-eps-invalid", "numerics", "warn", "norm eps positive and small"}, r::norm_eps_invalid},
      {{"norm-eps-underflows-fp16", "numerics", "info", "norm eps representable in float16"}, r::norm_eps_underflows_fp16},
      {{"rope-theta-invalid", "numerics", "error", "rope_theta above 1"}, r::rope_theta_invalid},
      {{"rope-theta-short-for-context", "numerics", "warn", "rope_theta's longest wavelength covers the context"}, r::rope_theta_short_for_context},
      {{"rope-scaling-factor-below-one", "numerics", "warn", "rope_scaling factor of at least 1"}, r::rope_scaling_factor_below_one},
      {{"softcapping-ignored", "numerics", "warn", "logit softcapping set on a family that does not read it"}, r::softcapping_ignored},
      {{"softcapping-missing", "numerics", "warn", "logit softcapping kept on families trained with it"}, r::softcapping_missing},
      // speed: sizes that keep GEMMs and attention kernels off their fast paths
      {{"vocab-multiple-of-8", "speed", "warn", "LM-head vocabulary a multiple of 8"}, r::vocab_multiple_of_8},
      {{"vocab-multiple-of-64", "speed", "info", "LM-head vocabulary a multiple of 64"}, r::vocab_multiple_of_64},
      {{"hidden-multiple-of-8", "speed", "warn", "hidden size a multiple of 8"}, r::hidden_multiple_of_8},
      {{"hidden-multiple-of-64", "speed", "info", "hidden size a multiple of 64"}, r::hidden_multiple_of_64},
      {{"intermediate-multiple-of-8", "speed", "warn", "feed-forward width a multiple of 8"}, r::intermediate_multiple_of_8},
      {{"intermediate-multiple-of-64", "speed", "info", "feed-forward width a multiple of 64"}, r::intermediate_multiple_of_64},
      {{"head-dim-multiple-of-8", "speed", "warn", "head_dim a multiple of 8 (fused attention kernels)"}, r::head_dim_multiple_of_8},
      {{"head-dim-over-flash-limit", "speed", "info", "head_dim within the flash kernel's 256"}, r::head_dim_over_flash_limit},
      // hygiene: training setups that work against themselves
      {{"positions-below-seq", "hygiene", "warn", "the requested --seq within the trained context"}, r::positions_below_seq},
      {{"dropout-with-lora", "hygiene", "warn", "dropout off in the frozen base of a LoRA run"}, r::dropout_with_lora},
      {{"depth-scaled-init", "hygiene", "info", "deep pre-norm stacks scale residual init by depth"}, r::depth_scaled_init},
      {{"unread-dimension-key", "hygiene", "warn", "size keys the family reads, not another family's spelling"}, r::unread_dimension_key},
      {{"label-maps-inconsistent", "hygiene", "warn", "num_labels, id2label and label2id agree"}, r::label_maps_inconsistent},
  };
  // clang-format on
  return table;
}

}  // namespace neurarch::lint
