#pragma once
// The shared vocabulary of transformer blocks. Each builder emits one graph node, declares the
// tensors that node owns under the caller's Hugging Face module paths, computes the output
// shape, and records why the node cannot run when the sizes do not fit. Families compose
// these; they never compute shapes themselves.
#include <cstdint>
#include <optional>
#include <string>

#include "graph/builder.hpp"

namespace neurarch::blocks {

using graph::GraphBuilder;
using graph::Scope;
using graph::Shape;
using graph::Value;

/// nn.Linear stores [out, in]; GPT-2's Conv1D stores [in, out].
enum class WeightLayout { Linear, Conv1D };

/// Declares `module.weight` (and `module.bias`) on `owner`.
void linear_tensors(GraphBuilder& b, const Value& owner, const Scope& module, std::int64_t in, std::int64_t out,
                    bool bias, WeightLayout layout = WeightLayout::Linear);
/// The same for a weight that multiplies `operand` rather than the node's input (an output projection: Inner).
void linear_tensors(GraphBuilder& b, const Value& owner, const Scope& module, std::int64_t in, std::int64_t out,
                    bool bias, graph::Operand operand, WeightLayout layout = WeightLayout::Linear);

enum class NormKind { LayerNorm, RMSNorm };

struct NormSpec {
  Scope module;
  NormKind kind = NormKind::LayerNorm;
  bool bias = true;  ///< LayerNorm's bias; RMSNorm never has one
};

/// Normalises the last dimension: LayerNorm or RMSNorm node named `name`.
Value norm(GraphBuilder& b, const Value& x, const std::string& name, const NormSpec& spec);

struct AttentionSpec {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  ///< 0: same as heads
  std::int64_t head_dim = 0;  ///< 0: hidden / heads
  bool causal = false;
  std::int64_t window = 0;
  Scope module;           ///< the attention module (node path)
  Scope q, k, v, o;       ///< separate projections
  Scope qkv;              ///< fused projection (GPT-2 c_attn); used when not empty
  bool qkv_bias = true;
  bool o_bias = true;
  WeightLayout layout = WeightLayout::Linear;
  /// The reference refuses hidden % heads != 0 at construction (BERT, ViT, GPT-2). Families
  /// with an explicit head_dim do not.
  bool require_divisible = true;
  double dropout = 0.0;         ///< attention-probability dropout
  double output_dropout = 0.0;  ///< dropout after the output projection (resid_pdrop, hidden_dropout_prob)
  bool rotary = false;          ///< RoPE on q and k
  bool k_bias = true;           ///< false: k has no bias even with qkv_bias (Whisper's k_proj)
  bool clamped_scores = false;  ///< eager path clamps masked scores (see graph::AttentionAttrs)
  bool softmax_fp32 = false;    ///< eager softmax in fp32, cast back (see graph::AttentionAttrs)
  bool output_gate = false;     ///< q's projection also gives a sigmoid gate on the heads' output (Qwen3-Next)
};

/// Self-attention over x: Multi-Head, Grouped-Query or Multi-Query by the head counts.
Value attention(GraphBuilder& b, const Value& x, const std::string& name, const AttentionSpec& spec);

struct FeedForwardSpec {
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;
  std::string activation;
  bool gated = false;  ///< down(act(gate(x)) * up(x))
  Scope module;
  Scope up, down, gate;
  Scope gate_up;          ///< fused [2 * intermediate, hidden] projection, used when not empty
  bool bias = true;       ///< on up and gate
  bool down_bias = true;
  WeightLayout layout = WeightLayout::Linear;
  double output_dropout = 0.0;  ///< dropout after the down projection
  double inner_dropout = 0.0;   ///< dropout between the activation and the down projection
};

Value feed_forward(GraphBuilder& b, const Value& x, const std::string& name, const FeedForwardSpec& spec);

/// Residual sum; the shapes must agree.
Value add(GraphBuilder& b, const Value& x, const Value& residual, const std::string& name);

/// Per-channel scale (DINOv2's layer_scale.lambda1): tensor `scale` of shape [hidden].
Value layer_scale(GraphBuilder& b, const Value& x, const std::string& name, const std::string& scale);

/// Token ids [seq] -> [seq, dim].
Value token_embedding(GraphBuilder& b, const Value& ids, const std::string& name, const Scope& module,
                      std::int64_t vocab, std::int64_t dim);

/// A lookup that is added to x: token types or similar. Output shape is x's.
Value added_embedding(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                      std::int64_t rows, std::int64_t dim);

/// Learned absolute positions added to x ([seq, dim]); fails when seq + offset > rows.
/// `offset` is RoBERTa's padding_idx + 1 (positions start after the pad id).
Value learned_positions(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                        std::int64_t rows, std::int64_t dim, std::int64_t offset = 0);

struct PatchEmbedSpec {
  Scope projection;  ///< Conv2d with kernel = stride = patch
  std::int64_t channels = 3;
  std::int64_t dim = 0;
  std::int64_t patch = 16;
  std::int64_t extra_tokens = 0;  ///< CLS / distillation / register tokens prepended
};

/// Pixels [C, H, W] -> [extra + (H/p)(W/p), dim].
Value patch_embed(GraphBuilder& b, const Value& pixels, const std::string& name, const PatchEmbedSpec& spec);

/// First token through dense + activation: [seq, d] -> [d].
Value pooler(GraphBuilder& b, const Value& x, const std::string& name, const Scope& dense, std::int64_t hidden,
             const std::string& activation = "tanh");

/// A Linear node (head transforms, projections): last dimension in -> out.
Value dense(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
            std::int64_t out, bool bias, const std::string& activation = "");

/// Classifier / score head: last dimension -> labels.
Value classifier(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t labels, bool bias);

struct LmHeadSpec {
  Scope module;              ///< e.g. "lm_head" or "cls.predictions.decoder"
  std::int64_t hidden = 0;
  std::int64_t vocab = 0;
  bool bias = false;
  std::string tied_weight;   ///< non-empty: weight aliases this tensor (tie_word_embeddings)
  std::string tied_bias;     ///< non-empty: bias aliases this tensor (BERT's decoder.bias)
  std::string extra_bias;    ///< a separately stored bias the head adds (cls.predictions.bias)
};

/// [seq, hidden] -> [seq, vocab].
Value lm_head(GraphBuilder& b, const Value& x, const std::string& name, const LmHeadSpec& spec);

/// nn.Conv2d over a [C, H, W] feature map -> [out, H', W'], H' = (H + 2 padding - kernel) / stride + 1.
struct ConvSpec {
  Scope module;
  std::int64_t in = 0;
  std::int64_t out = 0;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;  ///< depthwise: groups == in == out
  bool bias = true;
};
Value conv2d(GraphBuilder& b, const Value& x, const std::string& name, const ConvSpec& spec);

/// nn.BatchNorm2d over the channels of [C, H, W]: weight and bias, running_mean / running_var buffers (saved in
/// the model's dtype) and num_batches_tracked (I64 scalar). `activation` is applied to its output (ResNet).
Value batch_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                 const std::string& activation = "");

/// Max or average pooling over [C, H, W]; kernel 0 pools each channel to 1x1 (AdaptiveAvgPool2d((1, 1))).
Value pool(GraphBuilder& b, const Value& x, const std::string& name, bool max, std::int64_t kernel = 0,
           std::int64_t stride = 1, std::int64_t padding = 0);

/// Node names of repeated block i, shared by every family: "Attention_3", "LayerNorm_3_1", ...
struct BlockNames {
  std::int64_t i;
  std::string attention() const;
  std::string ffn() const;
  std::string norm(int k, NormKind kind) const;
  std::string add(int k) const;
  std::string scale(int k) const;
};

/// The pre-norm residual layer shared by ViT, DINOv2, GPT-2, Llama and their relatives:
///   h = x + scale1(attn(norm1(x)));  out = h + scale2(ffn(norm2(h)))
struct PreNormLayer {
  NormSpec norm1;
  AttentionSpec attention;
  std::optional<std::string> scale1;  ///< layer-scale tensor name, when the family has one
  NormSpec norm2;
  FeedForwardSpec ffn;
  std::optional<std::string> scale2;
};
Value pre_norm_layer(GraphBuilder& b, const Value& x, std::int64_t i, const PreNormLayer& layer);

/// The post-norm layer of BERT and its relatives:
///   h = norm1(x + attn(x));  out = norm2(h + ffn(h))
struct PostNormLayer {
  AttentionSpec attention;
  NormSpec norm1;
  FeedForwardSpec ffn;
  NormSpec norm2;
};
Value post_norm_layer(GraphBuilder& b, const Value& x, std::int64_t i, const PostNormLayer& layer);

}  // namespace neurarch::blocks
