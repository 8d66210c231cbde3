#pragma once
// The model as a graph of nodes with per-sample output shapes, and the tensors each node owns.
// This is the single source every planner and renderer reads; nothing downstream re-derives
// shapes or parameter counts from the config.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace neurarch::graph {

using Shape = std::vector<std::int64_t>;

enum class NodeType {
  Input,
  PatchEmbed,
  LearnedPosEmbed,
  Embedding,
  LayerNorm,
  RMSNorm,
  MultiHeadAttention,
  GroupedQueryAttention,
  MultiQueryAttention,
  FeedForward,
  GatedFeedForward,
  MixtureOfExperts,
  LayerScale,
  Add,
  Linear,
  Pooler,
  LMHead,
  Classifier,
  Output,
  // Appended for two-tower and multimodal models (CLIP, SigLIP):
  ContrastiveLogits,  ///< normalised embeddings of two towers -> scaled (and biased) similarity logits
  // Appended for convolutional vision models (ResNet, ConvNeXt): [C, H, W] feature maps.
  Conv2d,
  BatchNorm,
  Pool,
};
inline constexpr int kNodeTypeCount = 23;

/// NodeType::GroupedQueryAttention -> "Grouped-Query Attention"
std::string_view node_type_name(NodeType t);

enum class TensorKind { Parameter, Buffer };

struct TensorSpec {
  std::string name;  ///< exact Hugging Face state-dict name
  Shape shape;       ///< PyTorch order
  DType dtype = DType::F32;
  TensorKind kind = TensorKind::Parameter;
  int node = -1;        ///< owning node
  std::string tied_to;  ///< non-empty: an alias of that tensor, which save_pretrained drops
  std::int64_t scalars() const;
  bool saved() const { return tied_to.empty(); }
};

/// What an attention node computes; planners need these to size score matrices and KV.
struct AttentionAttrs {
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t query_len = 0;
  std::int64_t kv_len = 0;
  bool causal = false;
  std::int64_t window = 0;  ///< sliding window, 0 = full
  double dropout = 0.0;     ///< attention-probability dropout in train mode
  bool rotary = false;      ///< RoPE applied to q and k (new tensors autograd keeps)
  bool fused_qkv = false;   ///< one projection reads the input once (GPT-2 c_attn)
};

/// What a convolution or pooling node slides over its [C, H, W] input.
struct SpatialAttrs {
  std::int64_t kernel_h = 1;
  std::int64_t kernel_w = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;  ///< depthwise when groups == channels
  bool max = false;         ///< pooling: max (autograd keeps the argmax indices) rather than average
};

/// What a feed-forward node computes.
struct FeedForwardAttrs {
  std::int64_t in = 0;
  std::int64_t intermediate = 0;
  std::string activation;
  bool gated = false;
};

struct Node {
  int index = 0;
  std::string name;  ///< readable and unique: "Attention_3", "LayerScale_3_1"
  NodeType type = NodeType::Input;
  Shape out;         ///< per-sample output shape (batch excluded)
  std::vector<int> inputs;
  std::vector<int> tensors;  ///< indices into Graph::tensors
  int block = -1;            ///< repeated block (layer) index, -1 outside blocks
  std::string path;          ///< Hugging Face module path, "" when the node has no module
  std::optional<AttentionAttrs> attention;
  std::optional<FeedForwardAttrs> feed_forward;
  std::optional<SpatialAttrs> spatial;  ///< Conv2d and Pool nodes
  std::string activation;  ///< for nodes that apply one (pooler tanh, head transform gelu)
  double dropout = 0.0;    ///< dropout on this node's output in train mode (a saved mask)
};

/// The whole-graph shape check: the first node that cannot run, and why.
struct ForwardCheck {
  bool ok = true;
  int node = -1;
  std::string reason;
};

/// One argument of forward() that carries data (input_ids, pixel_values). Two-tower and multimodal
/// models have several; the main one is also described by Graph::input_shape / input_kind.
struct GraphInput {
  std::string name;  ///< forward()'s argument: "input_ids", "pixel_values"
  std::string kind;  ///< "tokens" | "pixels"
  Shape shape;       ///< per sample
  int node = -1;     ///< its Input node
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<TensorSpec> tensors;
  Shape input_shape;       ///< the main input, per sample: [seq] token ids or [C, H, W] pixels
  std::string input_kind;  ///< the main input's kind: "tokens" | "pixels"
  std::vector<GraphInput> inputs;  ///< every input in declaration order (the main one included)
  ForwardCheck forward;
  std::vector<std::string> notes;  ///< non-fatal remarks made while building

  /// Scalars save_pretrained writes (parameters + persistent buffers, tied aliases once).
  std::int64_t saved_scalars() const;
  /// Unique trainable parameters (tied aliases once, buffers excluded).
  std::int64_t parameter_count() const;
  /// Saved scalars owned by one node.
  std::int64_t node_scalars(int node) const;
  /// Nodes other than Input and Output.
  int layer_count() const;
  const TensorSpec* find_tensor(std::string_view name) const;
  /// The input whose Input node is `node`, or nullptr.
  const GraphInput* input_at(int node) const;
};

}  // namespace neurarch::graph
