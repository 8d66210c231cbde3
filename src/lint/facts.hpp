#pragma once
// What rules need to know about Hugging Face families and transformers itself, each with its
// source. Lookups by model_type; a type not listed gets no family-specific finding.
#include <optional>
#include <string_view>
#include <vector>

namespace neurarch::lint::facts {

/// Families trained in bfloat16 whose float16 runs are documented to overflow or NaN.
struct Bf16Family {
  std::string_view model_type;
  std::string_view source;
};
const std::vector<Bf16Family>& bf16_trained();
const Bf16Family* find_bf16_trained(std::string_view model_type);

/// Families whose modeling code reads attn_logit_softcapping / final_logit_softcapping.
bool reads_softcapping(std::string_view model_type);
/// Families trained with softcapping on (and the values they were trained with).
struct Softcapping {
  std::string_view model_type;
  double attention;  ///< attn_logit_softcapping
  double final;      ///< final_logit_softcapping
};
const Softcapping* trained_with_softcapping(std::string_view model_type);

/// Families whose _init_weights scales residual output projections by depth.
bool scales_init_by_depth(std::string_view model_type);
/// Families whose init sets each projection's std from its fan-in (T5: d_model^-0.5, d_ff^-0.5), not one
/// initializer_range for all.
bool inits_by_fan_in(std::string_view model_type);

/// transformers.activations.ACT2FN keys (4.47 plus later additions): an activation name outside
/// this list raises KeyError when the model is constructed.
const std::vector<std::string_view>& activation_names();

/// rope_scaling types transformers validates (modeling_rope_utils.ROPE_VALIDATION_FUNCTIONS) and
/// the keys each one requires besides its type; nullptr for an unknown type.
const std::vector<std::string_view>* rope_required_keys(std::string_view rope_type);

/// The config keys transformers' config classes keep one of PretrainedConfig's standard attributes under
/// (hidden_size, num_attention_heads, num_key_value_heads, num_hidden_layers, intermediate_size,
/// max_position_embeddings, vocab_size, rope_theta, norm_eps): the attribute itself first, then the spellings
/// other config classes use (their attribute_map entries, or the name their __init__ stores). For rules that look
/// at keys a family did not read; the keys a family did read come from its own alias lists (ConfigRead::aliases).
/// Empty for an attribute not listed.
const std::vector<std::string_view>& spellings(std::string_view attribute);

/// torch dtype attribute names a config's torch_dtype may hold ("auto" included).
bool is_torch_dtype_name(std::string_view name);

}  // namespace neurarch::lint::facts
