#pragma once
// Every rule's check function, by theme. The table in rule_table.cpp gives each its id and
// severity; the functions only look and describe.
#include "lint/rule.hpp"

namespace neurarch::lint::checks {

// will-not-run (rules_will_not_run.cpp: sizes and ids; rules_positions.cpp: windows, RoPE, patches)
Hits graph_forward(const Context& c);
Hits heads_divide_hidden(const Context& c);
Hits kv_heads_divide_heads(const Context& c);
Hits head_dim_ignored(const Context& c);
Hits special_token_outside_vocab(const Context& c);
Hits tied_embedding_shape(const Context& c);
Hits moe_top_k(const Context& c);
Hits sliding_window_exceeds_context(const Context& c);
Hits sliding_window_unused(const Context& c);
Hits rope_scaling_unread(const Context& c);
Hits rope_scaling_malformed(const Context& c);
Hits patch_grid_required(const Context& c);
Hits patch_grid_drops_pixels(const Context& c);
Hits mim_stride_mismatch(const Context& c);
Hits activation_unknown(const Context& c);
Hits torch_dtype_unknown(const Context& c);

// numerics (rules_numerics.cpp)
Hits fp16_on_bf16_model(const Context& c);
Hits norm_eps_invalid(const Context& c);
Hits norm_eps_underflows_fp16(const Context& c);
Hits rope_theta_invalid(const Context& c);
Hits rope_theta_short_for_context(const Context& c);
Hits rope_scaling_factor_below_one(const Context& c);
Hits softcapping_ignored(const Context& c);
Hits softcapping_missing(const Context& c);

// speed (rules_speed.cpp)
Hits vocab_multiple_of_8(const Context& c);
Hits vocab_multiple_of_64(const Context& c);
Hits hidden_multiple_of_8(const Context& c);
Hits hidden_multiple_of_64(const Context& c);
Hits intermediate_multiple_of_8(const Context& c);
Hits intermediate_multiple_of_64(const Context& c);
Hits head_dim_multiple_of_8(const Context& c);
Hits head_dim_over_flash_limit(const Context& c);

// hygiene (rules_hygiene.cpp)
Hits positions_below_seq(const Context& c);
Hits dropout_with_lora(const Context& c);
Hits depth_scaled_init(const Context& c);
Hits unread_dimension_key(const Context& c);
Hits label_maps_inconsistent(const Context& c);

}  // namespace neurarch::lint::checks
