#include "lint/facts.hpp"

#include <algorithm>
#include <utility>

#include "core/dtype.hpp"

namespace neurarch::lint::facts {
namespace {

template <typename Range>
bool contains(const Range& r, std::string_view v) {
  return std::find(r.begin(), r.end(), v) != r.end();
}

}  // namespace

const std::vector<Bf16Family>& bf16_trained() {
  static const std::vector<Bf16Family> table{
      {"llama", "transformers docs, Llama 2 and Llama 3: \"The Llama2 models were trained using bfloat16\""},
      {"code_llama", "transformers docs, Code Llama: \"trained with this precision [bfloat16], so we recommend "
                     "using it for further training or fine-tuning\""},
      {"persimmon", "transformers docs, Persimmon: \"Persimmon models were trained using bfloat16\""},
      {"fuyu", "transformers docs, Fuyu: \"The Fuyu models were trained using bfloat16\""},
      {"t5", "google-research/text-to-text-transfer-transformer#539 (\"All of our experiments use bfloat16 "
             "activations\"); float16 overflow: huggingface/transformers#10830, #14189"},
      {"mt5", "mT5 is trained like T5 in bfloat16 (google-research/text-to-text-transfer-transformer#539); "
              "float16 inf/nan: huggingface/transformers#10956"},
      {"umt5", "umT5 is trained like T5 in bfloat16 (google-research/text-to-text-transfer-transformer#539)"},
      {"longt5", "LongT5 float16 overflow to NaN: huggingface/transformers#19229"},
  };
  return table;
}

const Bf16Family* find_bf16_trained(std::string_view model_type) {
  for (const auto& f : bf16_trained())
    if (f.model_type == model_type) return &f;
  return nullptr;
}

bool reads_softcapping(std::string_view model_type) {
  // modeling_gemma2.py / modeling_gemma3.py / modeling_t5gemma.py read both keys; no other
  // family in transformers does.
  static const std::vector<std::string_view> readers{"gemma2", "gemma3", "gemma3_text", "t5gemma", "vaultgemma"};
  return contains(readers, model_type);
}

const Softcapping* trained_with_softcapping(std::string_view model_type) {
  // Gemma 2 technical report (Gemma Team 2024), section 2: attention logits capped at 50.0 and
  // final logits at 30.0; Gemma2Config's defaults are the same values.
  static const std::vector<Softcapping> table{{"gemma2", 50.0, 30.0}};
  for (const auto& s : table)
    if (s.model_type == model_type) return &s;
  return nullptr;
}

bool scales_init_by_depth(std::string_view model_type) {
  // GPT2PreTrainedModel._init_weights: c_proj weights get std initializer_range / sqrt(2 * n_layer);
  // MambaPreTrainedModel (rescale_prenorm_residual) does the same for out_proj.
  static const std::vector<std::string_view> scaled{"gpt2", "mamba", "mamba2"};
  return contains(scaled, model_type);
}

bool inits_by_fan_in(std::string_view model_type) {
  // T5PreTrainedModel._init_weights and the families that copy it.
  static const std::vector<std::string_view> fan_in{"t5", "mt5", "umt5", "longt5", "switch_transformers"};
  return contains(fan_in, model_type);
}

const std::vector<std::string_view>& activation_names() {
  static const std::vector<std::string_view> names{
      "gelu",   "gelu_10",   "gelu_fast", "gelu_new", "gelu_python", "gelu_pytorch_tanh", "gelu_accurate",
      "laplace", "leaky_relu", "linear",   "mish",     "quick_gelu",  "relu",              "relu2",
      "relu6",  "sigmoid",   "silu",      "swish",    "tanh",        "prelu",             "xielu",
  };
  return names;
}

const std::vector<std::string_view>* rope_required_keys(std::string_view rope_type) {
  // transformers 4.47 modeling_rope_utils: _validate_*_parameters. "mrope" is Qwen2-VL's spelling,
  // which its config rewrites to "default".
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> table{
      {"default", {}},
      {"mrope", {}},
      {"linear", {"factor"}},
      {"dynamic", {"factor"}},
      {"yarn", {"factor"}},
      {"longrope", {"short_factor", "long_factor"}},
      {"llama3", {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"}},
  };
  for (const auto& [type, required] : table)
    if (type == rope_type) return &required;
  return nullptr;
}

const std::vector<std::string_view>& spellings(std::string_view attribute) {
  // Sources (transformers' configuration_*.py): GPT2Config's attribute_map (n_embd, n_head, n_layer, n_positions;
  // n_inner, layer_norm_epsilon), T5Config's (d_model, num_heads, num_layers; d_ff), BartConfig's (d_model,
  // encoder_attention_heads, encoder_layers, encoder_ffn_dim), DistilBertConfig's (dim, n_heads, n_layers,
  // hidden_dim), MptConfig's (d_model, n_heads, n_layers, max_seq_len), OPTConfig (ffn_dim), GPTNeoXConfig 4.x
  // (rotary_emb_base), CLIPVisionConfig-style towers (embed_dim, mlp_ratio), ChatGLM's remote config
  // (multi_query_group_num, seq_length, padded_vocab_size, layernorm_epsilon), Llama-style configs (rms_norm_eps,
  // rope_theta) and Mistral's original params.json names (dim, n_kv_heads, norm_eps, rope_base, n_vocab).
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> table{
      {"hidden_size", {"hidden_size", "n_embd", "d_model", "dim", "embed_dim"}},
      {"num_attention_heads", {"num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads"}},
      {"num_key_value_heads", {"num_key_value_heads", "n_kv_heads", "num_kv_heads", "multi_query_group_num"}},
      {"num_hidden_layers", {"num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers"}},
      {"intermediate_size",
       {"intermediate_size", "n_inner", "ffn_dim", "d_ff", "hidden_dim", "encoder_ffn_dim", "mlp_ratio"}},
      {"max_position_embeddings", {"max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "seq_length"}},
      {"vocab_size", {"vocab_size", "n_vocab", "padded_vocab_size"}},
      {"rope_theta", {"rope_theta", "rotary_emb_base", "rope_base"}},
      {"norm_eps", {"layer_norm_eps", "layer_norm_epsilon", "rms_norm_eps", "norm_eps", "layernorm_epsilon"}},
  };
  static const std::vector<std::string_view> none;
  for (const auto& [name, keys] : table)
    if (name == attribute) return keys;
  return none;
}

bool is_torch_dtype_name(std::string_view name) {
  if (name == "auto" || name == "double" || name == "torch.double") return true;
  return dtype_from_torch(name).has_value();
}

}  // namespace neurarch::lint::facts
