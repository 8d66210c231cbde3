#pragma once
// The decoder-only stack shared by Llama and the families that copy it with other module names
// or a small extra (bias switches, per-head q/k norms, fused projections, extra norms around the
// sublayers, sliding windows): token embedding -> N residual layers -> final norm -> head.
// Families read their own config keys and defaults, fill a DecoderSpec and call build_decoder.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::decoder {

/// Module names under the base model. An empty norm name means the layer has no such norm.
struct DecoderNames {
  std::string embed = "embed_tokens";
  std::string positions;   ///< learned absolute positions (GPT-Neo's wpe); empty: rotary
  std::string embed_norm;  ///< a norm right after the embedding (OpenLlama's stable embedding)
  std::string layers = "layers";
  std::string attn = "self_attn";
  std::string q = "q_proj", k = "k_proj", v = "v_proj", o = "o_proj";
  std::string qkv;  ///< fused q/k/v projection, used when not empty
  std::string q_norm = "q_norm", k_norm = "k_norm";
  std::string mlp = "mlp";
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";
  std::string gate_up;  ///< fused gate/up projection, used when not empty
  std::string pre_attn_norm = "input_layernorm";
  std::string post_attn_norm;  ///< applied to the attention output before the residual add
  std::string pre_ffn_norm = "post_attention_layernorm";
  std::string post_ffn_norm;  ///< applied to the MLP output before the residual add
  std::string final_norm = "norm";
};

/// Where q/k normalisation sits: none, over each head with one shared weight (Qwen3:
/// [head_dim]), over all heads at once (OLMo2: [heads * head_dim]), or over each head with a
/// weight per head (Cohere: [heads, head_dim]; StableLM: one module per head, norms.<h>).
enum class QkNorm { None, PerHead, Full, Stacked, ModulePerHead };

struct DecoderSpec {
  std::int64_t vocab = 0;
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;
  std::int64_t positions = 0;  ///< max_position_embeddings: RoPE extrapolates past it, learned ones fail
  std::int64_t position_offset = 0;  ///< learned positions start at this row of the table (BioGPT's 2)
  std::string activation = "silu";
  /// RoPE on q and k (the planner counts the copies it keeps); false for ALiBi. Learned
  /// positions (names.positions) turn it off too.
  bool rotary = true;
  /// Per layer: whether RoPE is applied (Llama 4's and SmolLM3's no_rope_layers); empty: `rotary` everywhere.
  std::vector<bool> rope_layers;
  bool gated = true;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;  ///< on gate/up
  bool down_bias = false;
  blocks::NormKind norm = blocks::NormKind::RMSNorm;
  bool norm_bias = false;    ///< LayerNorm only
  bool norm_weight = true;   ///< false: parameter-free norms (OLMo)
  /// Attention and MLP side by side: out = x + attn(n1(x)) + mlp(n2(x)), where n2 is the
  /// pre_ffn_norm or, when that name is empty, n1 itself (GPT-J, Cohere, Phi).
  bool parallel = false;
  QkNorm qk_norm = QkNorm::None;
  bool qk_norm_bias = false;  ///< q/k norms are LayerNorms with bias (Persimmon-like)
  std::string attn_sub_norm;  ///< RMSNorm [hidden] before o_proj, under the attention module
  std::string ffn_sub_norm;   ///< RMSNorm [intermediate] before down_proj, under the MLP module
  std::vector<std::string> head_vectors;  ///< extra [head_dim] parameters of the attention
  std::vector<std::string> head_scalars;  ///< extra [heads] parameters of the attention (GPT-OSS's sinks)
  /// The reference has no SDPA path (GPT-OSS's sinks): the score matrices are kept whatever --attention says.
  bool eager_only = false;
  /// q_proj also projects a per-channel gate; the heads' output is multiplied by its sigmoid (Qwen3-Next).
  bool attention_output_gate = false;
  double attention_dropout = 0.0;  ///< on the attention probabilities in train mode
  /// The eager softmax runs in fp32 and casts back, as Llama's eager_attention_forward does.
  bool softmax_fp32 = true;
  double residual_dropout = 0.0;   ///< on the attention and MLP outputs before each residual add
  /// Sliding window per layer (0 = full attention); empty: `window` for every layer.
  std::vector<std::int64_t> windows;
  std::int64_t window = 0;
  bool tie_word_embeddings = false;
  /// The LM head multiplies by the embedding matrix itself and owns no module (OpenLlama's
  /// shared_input_output_embedding).
  bool lm_head_is_embedding = false;
  /// The attention refuses hidden % heads != 0 at construction (Qwen2 in 4.47.1).
  bool require_divisible = false;
  std::string lm_head = "lm_head";  ///< GPT-NeoX calls it embed_out
  bool lm_head_bias = false;
  std::string token_classifier = "score";
  std::string prefix = "model";     ///< attribute holding the base model in head classes
  std::string qa_prefix = "model";  ///< ...in ForQuestionAnswering (Llama keeps "transformer")
  DecoderNames names;
  /// Builds layer i's MLP in place of the dense one (mixture-of-experts families): called with
  /// the normed input, the layer index and the layer's module path.
  std::function<graph::Value(graph::GraphBuilder&, const graph::Value&, std::int64_t, const graph::Scope&)> mlp_override;
  /// The same for the attention (DeepSeek's latent attention): called with the normed input. A layer
  /// whose override returns no node (Value::node < 0) keeps the default attention (LFM2's hybrid stack).
  std::function<graph::Value(graph::GraphBuilder&, const graph::Value&, std::int64_t, const graph::Scope&)>
      attention_override;
};

/// The Llama-shaped keys every clone reads, with the clone's class defaults.
struct LlamaDefaults {
  std::int64_t vocab = 32000;
  std::int64_t hidden = 4096;
  std::int64_t intermediate = 11008;
  std::int64_t layers = 32;
  std::int64_t heads = 32;
  std::int64_t kv_heads = 0;  ///< 0: same as heads
  std::int64_t head_dim = 0;  ///< 0: hidden / heads
  std::int64_t positions = 2048;
  std::string activation = "silu";
  bool tie_word_embeddings = false;
};

/// vocab_size, hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
/// num_key_value_heads (absent: heads), head_dim (absent: hidden / heads),
/// max_position_embeddings, hidden_act, tie_word_embeddings.
DecoderSpec read_llama_config(const Config& c, const LlamaDefaults& d);

/// A sliding-window size that may be written as null (no window): 0 then, `fallback` when absent.
std::int64_t window_or_none(const Config& c, std::string_view key, std::int64_t fallback);

/// Per-layer windows from `layer_types` ("sliding_attention" -> window), empty when absent.
std::vector<std::int64_t> windows_from_layer_types(const Config& c, std::int64_t layers, std::int64_t window);

/// Qwen2-style windows (4.57.6 configs): sliding_window counts only with use_sliding_window;
/// layer_types decides per layer, else the layers from max_window_layers on slide.
std::vector<std::int64_t> qwen_windows(const Config& c, std::int64_t layers, std::int64_t default_window,
                                       std::int64_t default_max_window_layers);

/// The base model plus the head of `in.head` (CausalLM, SequenceClassification,
/// TokenClassification, QuestionAnswering).
graph::Value build_decoder(const BuildInput& in, graph::GraphBuilder& b, const DecoderSpec& s);

/// GPT-J's layout (gptj.cpp); CodeGen is the same with q/k/v fused in qkv_proj.
DecoderSpec gptj_spec(const Config& c);

}  // namespace neurarch::families::decoder
