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
  LatentAttention,  ///< multi-head latent attention (DeepSeek's MLA): low-rank q and kv projections
  StateSpaceMixer,  ///< Mamba's selective-scan mixer (in_proj, causal conv1d, SSM scan, out_proj)
  // encoder-decoder and speech families
  Conv1d,                ///< a 1-D convolution over time (audio front-ends, positional convolutions)
  RelativePositionBias,  ///< T5's bucketed relative-position table, added to the attention scores
  // Appended for two-tower and multimodal models (CLIP, SigLIP):
  ContrastiveLogits,  ///< normalised embeddings of two towers -> scaled (and biased) similarity logits
  // Appended for convolutional vision models (ResNet, ConvNeXt): [C, H, W] feature maps.
  Conv2d,
  BatchNorm,
  Pool,
  // Appended for the linear-attention hybrids (Qwen3-Next, Qwen3.5):
  GatedDeltaNet,  ///< gated delta-rule linear attention: projections, causal conv1d over q/k/v, chunked recurrence
  RecurrentMixer,  ///< a token mixer that scans the sequence with a fixed-size state (RecurrentAttrs::cell says which)
  // Appended for the deformable-attention detectors (Deformable DETR and its relatives):
  DeformableAttention,  ///< multi-scale deformable attention: a few learned sampling points per level and head
  // Appended for FNet: token mixing by a parameter-free 2-D Fourier transform (the real part of FFT over
  // the hidden and then the sequence axis), in place of attention.
  FourierMixer,
};
inline constexpr int kNodeTypeCount = 31;

/// NodeType::GroupedQueryAttention -> "Grouped-Query Attention"
std::string_view node_type_name(NodeType t);

enum class TensorKind { Parameter, Buffer };

/// What a parameter is to the op that reads it, stated where the block declares it. The planners decide
/// from it which tensors autocast copies, PEFT adapts and bitsandbytes stores in 4 bits; nothing
/// downstream guesses it from the name, the rank or the declaration order.
enum class TensorRole {
  Linear,    ///< an nn.Linear's 2-D weight (or transformers' Conv1D's): a matmul PEFT adapts and QLoRA stores in 4 bits
  Matrix,    ///< a bare 2-D nn.Parameter used as a matmul weight (in_proj_weight, DBRX's flat experts): not a module PEFT adapts
  Stacked,   ///< matrices stacked in one nn.Parameter (routed experts' [experts, out, in], Griffin's block-diagonal gates
             ///< [heads, block, block]): one matmul per slice, neither adapted nor quantized
  Conv,      ///< a convolution's kernel ([out, in / groups, k...], a weight-normed kernel's weight_v): a matmul autocast copies, never adapted
  Bias,      ///< added to an op's output (also stacked expert biases, LSTM gate biases)
  Norm,      ///< a normalisation's scale (LayerNorm, RMSNorm, GroupNorm weight)
  Embedding, ///< a table read by index: token, position, type, relative-position and codebook tables
  Other,     ///< anything else: class and mask tokens, layer scales, SSM A_log and D, temperatures; and every buffer
};

/// Whether the op multiplies its input by this tensor as a matrix: autocast keeps a half-precision copy for backward.
constexpr bool is_matmul_role(TensorRole r) {
  return r == TensorRole::Linear || r == TensorRole::Matrix || r == TensorRole::Stacked || r == TensorRole::Conv;
}

/// Which activation a matmul weight multiplies, stated where the block declares it (like its role). The
/// activation rules keep one input per operand a matmul reads (q, k and v share the node's input; an output
/// projection keeps the heads' output), and the cost model runs a weight over its operand's positions.
enum class Operand {
  Input,        ///< the node's main input: q/k/v, an MLP's gate and up, a router, a shared expert's input, a head
  Memory,       ///< another node's output the op reads: cross-attention's encoder states, deformable attention's values
  Inner,        ///< the op's own inner activation, read by its closing projection (o_proj, down_proj, out_proj)
  QueryLatent,  ///< MLA: the normed compressed query (q_b_proj)
  KvLatent,     ///< MLA: the normed compressed key-value (kv_b_proj)
  Routed,       ///< routed experts' input projections: the tokens gathered for each expert
  RoutedInner,  ///< routed experts' down projection
  Internal,     ///< an activation inside the op whose kept copy the op's own rule counts (a mixer's conv1d,
                ///< x_proj and gates; nn.MultiheadAttention's in_proj behind separate q/k/v projections)
  Positions,    ///< position embeddings the op projects (DETR's query and key positions, relative-position tables):
                ///< [positions, hidden] per layer, which the rules leave out of the kept activations
  Idle,         ///< held by the op but not run on this input (X-MOD's adapters of the other languages); their
                ///< biases are Idle too
};

struct TensorSpec {
  std::string name;  ///< exact Hugging Face state-dict name
  Shape shape;       ///< PyTorch order
  DType dtype = DType::F32;
  TensorKind kind = TensorKind::Parameter;
  int node = -1;        ///< owning node
  std::string tied_to;  ///< non-empty: an alias of that tensor, which save_pretrained drops
  TensorRole role = TensorRole::Other;  ///< declared by the block (GraphBuilder::parameter); Other for buffers
  Operand operand = Operand::Input;     ///< what a matmul weight multiplies, declared with its role
  /// requires_grad is off in the reference (DETR's stem, Whisper's sinusoid): saved and counted, but no
  /// gradient, optimizer state or autocast cache.
  bool frozen = false;
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
  /// Cross-attention: the node whose output k and v project (the encoder's last state), whose
  /// length is kv_len; -1 for self-attention, where q, k and v read the node's first input.
  int kv_input = -1;
  /// false: the reference has only the eager path (T5's position bias), so the score and
  /// probability matrices are kept whatever --attention says.
  bool sdpa = true;
  /// The eager path clamps the masked scores (torch.max(scores, finfo.min), OPT), whose backward
  /// keeps another [heads, q, kv] matrix; SDPA paths have no clamp.
  bool clamped_scores = false;
  /// The eager path runs its softmax in fp32 and casts back (`softmax(w, dtype=torch.float32).to(q.dtype)`,
  /// Llama-style decoders and OPT): in half precision it keeps the fp32 probabilities and their cast.
  bool softmax_fp32 = false;
  /// DeBERTa's disentangled attention: c2p scores every query against the relative table projected by
  /// the key projection ([relative_span, head_dim] per head, repeated for every sample), p2c every key
  /// against it projected by the query projection; both add gathered [q, kv] terms to the scores.
  std::int64_t relative_span = 0;
  bool c2p = false;
  bool p2c = false;
  /// The heads' output is multiplied by sigmoid(gate) before the output projection, the gate projected
  /// together with q (Qwen3-Next's gated attention: q_proj twice as wide).
  bool output_gate = false;
};

/// Multi-head latent attention's low-rank factorisation (DeepSeek-V2/V3): q through a
/// q_lora_rank bottleneck (0: one q_proj), k and v from one kv_lora_rank latent plus a shared
/// RoPE key of qk_rope_head_dim; each head's q/k is qk_nope + qk_rope wide, its v v_head_dim.
struct LatentAttentionAttrs {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

/// A Mamba mixer: version 1 (selective scan with x_proj / dt_proj, per-channel state) or 2
/// (state-space duality: one scalar decay per head, B and C shared by `groups` of heads).
struct StateSpaceAttrs {
  int version = 1;
  std::int64_t inner = 0;  ///< expand x hidden channels the scan runs over
  std::int64_t state = 0;  ///< SSM state size per channel
  std::int64_t conv_kernel = 0;
  std::int64_t time_step_rank = 0;  ///< version 1: width of the dt bottleneck
  std::int64_t heads = 0;           ///< version 2
  std::int64_t groups = 0;          ///< version 2: n_groups sharing B and C
  std::int64_t projection = 0;      ///< in_proj's output width
};

/// A Gated DeltaNet mixer (linear attention with a delta-rule state update): q and k of key_heads x
/// key_head_dim, v and the output gate z of value_heads x value_head_dim, per-value-head beta and decay;
/// a depthwise causal conv1d of conv_kernel taps over q, k and v; the recurrence run chunk tokens at a
/// time; a gated RMSNorm over each value head; out_proj back to hidden. The state is
/// [value_heads, key_head_dim, value_head_dim] per sequence, whatever the sequence length.
struct LinearAttentionAttrs {
  std::int64_t key_heads = 0;
  std::int64_t value_heads = 0;
  std::int64_t key_head_dim = 0;
  std::int64_t value_head_dim = 0;
  std::int64_t conv_kernel = 0;
  std::int64_t chunk = 64;  ///< tokens per block of the chunked kernel (flash-linear-attention's BT)
};

/// The recurrence a RecurrentMixer node runs. Each keeps a state whose size does not grow with the sequence.
enum class RecurrentCell {
  RgLru,      ///< Griffin's real-gated linear recurrent unit: one decayed scalar per channel, gates per head block
  Wkv,        ///< RWKV-4's WKV: per channel a decayed numerator and denominator and their running max exponent
  Mlstm,      ///< xLSTM's matrix LSTM: per head a [key_head_dim, head_dim] memory, a key-sized normaliser and a max
  Lightning,  ///< lightning (decayed linear) attention: per head a [key_head_dim, head_dim] sum of k^T v
};

/// "RG-LRU", "WKV", "mLSTM", "Lightning Attention"
std::string_view recurrent_cell_name(RecurrentCell c);

/// A recurrent mixer: input projections (Operand::Input), an optional depthwise causal conv1d of conv_kernel taps,
/// the scan over `width` channels in `heads` heads, and an output projection (Operand::Inner). `state` is the scan's state in scalars per
/// sequence: what a generation cache keeps, and what a chunked kernel materialises at each chunk boundary.
struct RecurrentAttrs {
  RecurrentCell cell = RecurrentCell::RgLru;
  std::int64_t width = 0;         ///< channels the scan outputs (heads x head_dim)
  std::int64_t heads = 1;
  std::int64_t key_head_dim = 0;  ///< Mlstm and Lightning: q and k per head; 0 where the cell has no keys
  std::int64_t state = 0;         ///< scalars per sequence
  std::int64_t conv_kernel = 0;   ///< 0: no convolution
  std::int64_t chunk = 0;         ///< tokens per block of a chunked kernel; 0: a token-by-token scan
  bool token_shift = false;  ///< as FeedForwardAttrs::token_shift (RWKV's time mix)
};

/// Multi-scale deformable attention (Deformable DETR, Zhu et al. 2021; transformers'
/// MultiScaleDeformableAttention): every query predicts, per head, `levels` x `points` sampling offsets
/// (sampling_offsets) around its reference point and a softmax weight for each (attention_weights); the value
/// (value_proj of `value_len` tokens, the feature maps of all levels flattened) is sampled there bilinearly
/// (grid_sample) and the weighted samples summed; output_proj maps the heads back. No [queries, value_len]
/// score matrix exists. value_proj reads the value node (Operand::Memory), output_proj the samples (Inner).
struct DeformableAttrs {
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t levels = 0;
  std::int64_t points = 0;     ///< sampling points per level and head (the largest where levels differ)
  std::int64_t samples = 0;    ///< sampling points per query and head over all levels (levels x points when uniform)
  std::int64_t queries = 0;
  std::int64_t value_len = 0;  ///< sum of H x W over the levels
  /// The node whose output the value projection reads (the encoder memory); -1: the node's first input (the
  /// encoder's self-attention, where queries and values are the same tokens).
  int value_input = -1;
  /// 2: reference points (x, y), the offsets divided by each level's size; 4: reference boxes (cx, cy, w, h),
  /// the offsets scaled by half the box size over the points (box-refining and two-stage decoders).
  int reference_coords = 2;
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
  double inner_dropout = 0.0;  ///< dropout between the activation and the down projection (T5, BART)
  /// RWKV's channel mix: sigmoid(receptance(x)) scales the down projection's output; the [in, in] receptance
  /// weight is declared after the down projection.
  bool output_gate = false;
  /// RWKV: every input projection reads its own learned mix of each token and the one before it (a new
  /// tensor per projection) rather than the node's input itself.
  bool token_shift = false;
};

/// What a 1-D convolution computes; lengths are per sample, in frames.
struct ConvAttrs {
  std::int64_t in_channels = 0;
  std::int64_t out_channels = 0;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;
  std::int64_t in_len = 0;
  std::int64_t out_len = 0;
  /// LFM2's gated short convolution: the input node's output holds B, C and x; the convolution reads
  /// B * x, and its output, cut to out_len, is scaled by C. The two products keep that whole output and
  /// the convolution's uncut output for backward.
  bool gated = false;
};

/// One input of the model: the main one (Graph::input_shape) or a further one (decoder tokens).
/// A mixture-of-experts layer: a router sends each token to top_k of `experts` identical routed
/// experts; shared experts see every token. Tensors are declared in this order, which the
/// activation model relies on: router weight, then the routed experts (per expert: input
/// projections, then the output projection; or the stacked [experts, out, in] tensors), then the
/// shared expert and its gate.
struct MoEAttrs {
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  /// Experts each token runs through in the reference's forward when that is not top_k: Llama 4 repeats
  /// every token into every expert (the unchosen scaled by a zero score). 0 = top_k. Active parameters
  /// still count top_k; activations and FLOPs follow this.
  std::int64_t dispatched = 0;
  std::int64_t intermediate = 0;         ///< one routed expert's width
  std::int64_t shared_intermediate = 0;  ///< the always-on shared expert's width, 0 = none
  bool shared_gate = false;              ///< a sigmoid gate scales the shared expert (Qwen2-MoE)
  std::string activation;
  bool gated = true;
  std::int64_t expert_inputs = 2;   ///< matmul weights of one routed expert that read its input
  std::vector<int> routed_tensors;  ///< Graph::tensors indices of the routed experts' tensors
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
  std::optional<MoEAttrs> moe;  ///< set on MixtureOfExperts nodes
  std::optional<LatentAttentionAttrs> latent;  ///< set on LatentAttention nodes
  std::optional<StateSpaceAttrs> ssm;          ///< set on StateSpaceMixer nodes
  std::optional<LinearAttentionAttrs> linear_attention;  ///< set on GatedDeltaNet nodes
  std::optional<RecurrentAttrs> recurrent;               ///< set on RecurrentMixer nodes
  std::optional<DeformableAttrs> deformable;             ///< set on DeformableAttention nodes
  std::optional<SpatialAttrs> spatial;  ///< Conv2d and Pool nodes
  std::string activation;  ///< for nodes that apply one (pooler tanh, head transform gelu)
  double dropout = 0.0;    ///< dropout on this node's output in train mode (a saved mask)
  std::optional<ConvAttrs> conv;
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
  std::string kind;  ///< "tokens" | "pixels" | "audio" | "audio_features"
  Shape shape;       ///< per sample
  int node = -1;     ///< its Input node
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<TensorSpec> tensors;
  Shape input_shape;       ///< per sample, of the main input: [seq] token ids or [C, H, W] pixels
  std::string input_kind;  ///< of the main input: "tokens" | "pixels" | "audio" | "audio_features"
  std::vector<GraphInput> inputs;  ///< every input in declaration order, the main one first
  ForwardCheck forward;
  std::vector<std::string> notes;  ///< non-fatal remarks made while building
  /// Older checkpoint layouts the reference renames on load (transformers' _checkpoint_conversion_mapping,
  /// e.g. Gemma 3's language_model.model. -> model.language_model.): a file name at module `from` is read
  /// as the same name at `to`. Appended for the 4.57 vision-language families.
  struct CheckpointRename {
    std::string from, to;
  };
  std::vector<CheckpointRename> checkpoint_renames;

  /// Scalars save_pretrained writes (parameters + persistent buffers, tied aliases once).
  std::int64_t saved_scalars() const;
  /// Unique parameters (tied aliases once, buffers excluded), frozen ones included.
  std::int64_t parameter_count() const;
  /// The part of parameter_count() the reference freezes (requires_grad False).
  std::int64_t frozen_parameter_count() const;
  /// Parameters one token runs through: the total less the routed experts each token skips
  /// (all experts are still held in memory; only compute and activations follow the routing).
  std::int64_t active_parameter_count() const;
  /// True when some node routes tokens to experts.
  bool has_experts() const;
  /// Saved scalars owned by one node.
  std::int64_t node_scalars(int node) const;
  /// Nodes other than Input and Output.
  int layer_count() const;
  const TensorSpec* find_tensor(std::string_view name) const;
  /// The input whose Input node is `node`, or nullptr.
  const GraphInput* input_at(int node) const;
};

}  // namespace neurarch::graph
