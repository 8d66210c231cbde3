#include "plan/ops/ops.hpp"

namespace neurarch::plan {

const OpSchema& op_schema(graph::NodeType type) {
  using graph::NodeType;
  switch (type) {
    case NodeType::Input: return graph_input_op;
    case NodeType::PatchEmbed: return patch_embed_op;
    case NodeType::LearnedPosEmbed:
    case NodeType::Embedding: return lookup_op;
    case NodeType::LayerNorm: return layer_norm_op;
    case NodeType::RMSNorm: return rms_norm_op;
    case NodeType::MultiHeadAttention:
    case NodeType::GroupedQueryAttention:
    case NodeType::MultiQueryAttention: return attention_op;
    case NodeType::FeedForward:
    case NodeType::GatedFeedForward: return feed_forward_op;
    case NodeType::MixtureOfExperts: return mixture_of_experts_op;
    case NodeType::LayerScale: return layer_scale_op;
    case NodeType::Add: return add_op;
    case NodeType::Linear: return linear_op;
    case NodeType::Pooler: return pooler_op;
    case NodeType::LMHead: return lm_head_op;
    case NodeType::Classifier: return classifier_op;
    case NodeType::Output: return output_op;
    case NodeType::LatentAttention: return latent_attention_op;
    case NodeType::StateSpaceMixer: return state_space_op;
    case NodeType::Conv1d: return conv1d_op;
    case NodeType::RelativePositionBias: return relative_position_bias_op;
    case NodeType::ContrastiveLogits: return contrastive_logits_op;
    case NodeType::Conv2d: return conv2d_op;
    case NodeType::BatchNorm: return batch_norm_op;
    case NodeType::Pool: return pool_op;
    case NodeType::GatedDeltaNet: return gated_delta_net_op;
    case NodeType::RecurrentMixer: return recurrent_mixer_op;
    case NodeType::DeformableAttention: return deformable_attention_op;
    case NodeType::FourierMixer: return fourier_mixer_op;
  }
  return output_op;  // unreachable: the switch names every node type (-Wswitch)
}

}  // namespace neurarch::plan
