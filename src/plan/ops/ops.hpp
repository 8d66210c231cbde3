#pragma once
// The op schemas, defined in the files under plan/ops/ (registry.cpp maps node types to them); each is a constant,
// initialised before any code runs. Adding a node type:
// its file here, its line below and its case in registry.cpp.
#include <cstdint>

#include "plan/ops/context.hpp"
#include "plan/ops/schema.hpp"

namespace neurarch::plan {

extern const OpSchema graph_input_op;             // embedding.cpp
extern const OpSchema lookup_op;                  // embedding.cpp: token and position tables
extern const OpSchema patch_embed_op;             // embedding.cpp
extern const OpSchema relative_position_bias_op;  // embedding.cpp
extern const OpSchema layer_norm_op;              // norm.cpp
extern const OpSchema rms_norm_op;                // norm.cpp
extern const OpSchema batch_norm_op;              // norm.cpp
extern const OpSchema add_op;                     // residual.cpp
extern const OpSchema layer_scale_op;             // residual.cpp
extern const OpSchema output_op;                  // residual.cpp
extern const OpSchema linear_op;                  // dense.cpp
extern const OpSchema pooler_op;                  // dense.cpp
extern const OpSchema classifier_op;              // dense.cpp
extern const OpSchema lm_head_op;                 // heads.cpp
extern const OpSchema contrastive_logits_op;      // heads.cpp
extern const OpSchema conv2d_op;                  // conv.cpp
extern const OpSchema conv1d_op;                  // conv.cpp
extern const OpSchema pool_op;                    // conv.cpp
extern const OpSchema attention_op;               // attention.cpp
extern const OpSchema latent_attention_op;        // latent_attention.cpp
extern const OpSchema feed_forward_op;            // feed_forward.cpp
extern const OpSchema mixture_of_experts_op;      // mixture_of_experts.cpp
extern const OpSchema state_space_op;             // state_space.cpp
extern const OpSchema gated_delta_net_op;         // gated_delta_net.cpp
extern const OpSchema recurrent_mixer_op;         // recurrent_mixer.cpp
extern const OpSchema deformable_attention_op;    // deformable_attention.cpp
extern const OpSchema fourier_mixer_op;           // fourier_mixer.cpp

/// What the attention product itself keeps (attention_rules' score_rule): SDPA's output and log-sum-exp, or the
/// score-shaped tensors of the eager or math path. `output`: elements of the heads' concatenated output
/// (attention.cpp; latent attention shares it).
void attention_product_saved(OpContext& ctx, NodeActivations& a, const graph::Node& n, std::int64_t tokens,
                             std::int64_t output);
/// The attention product's work (attention.cpp; latent attention shares it).
OpWork attention_product_work(const OpCostInput& x);
/// What the attention product allocates while it runs (attention.cpp; latent attention shares it): the score-sized
/// temporaries and gradients of attention_rules' score_transients, and in backward the gradients of q, k and v it
/// hands to the projections. `qk_dim` and `v_dim`: per head.
OpTransients attention_product_transients(const OpContext& ctx, const OpInput& x, std::int64_t qk_dim,
                                          std::int64_t v_dim);
/// RWKV's token shift in front of the projections (token_shift.cpp; channel and time mix share it).
void token_shift_inputs(OpContext& ctx, NodeActivations& a, const OpInput& x);

}  // namespace neurarch::plan
