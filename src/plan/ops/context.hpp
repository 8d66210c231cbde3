#pragma once
// What every op's rules share while the activation plan walks the graph in order: the setup's byte widths, which
// matmul weights keep their input, the dtype of every node's output so far, and the kept tensors that many ops have
// in common (a linear's input, LoRA's extras, an activation function's, a dropout mask, a softmax's). One OpContext
// per plan; each op's own rules are in its file under plan/ops/ (schema.hpp).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "plan/activations.hpp"
#include "plan/attention_rules.hpp"
#include "plan/ops/schema.hpp"
#include "plan/setup.hpp"
#include "plan/weights.hpp"

namespace neurarch::plan {

/// The node an op rule sizes, with what it reads: the first input's producer and the dtype of its output.
struct OpInput {
  const graph::Node& node;
  const graph::Node* in = nullptr;  ///< the first input's producer; null for a graph input
  int in_bytes = 4;                 ///< bytes per element of that input
  graph::Shape in_shape;
  std::int64_t tokens = 1;  ///< rows of the input (of the output when there is none): every axis but the last
  std::int64_t d_in = 0;    ///< the input's last axis
  std::int64_t d = 0;       ///< the output's last axis
  bool from_tokens = false;  ///< the main operand descends from token ids (a lookup keeps its indices)
};

class OpContext {
 public:
  OpContext(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles);

  const graph::Graph& g;
  const Setup& s;
  const std::vector<WeightRole>& roles;
  bool autocast = false;
  int compute = 2;  ///< bytes of what matmuls emit
  int params = 4;   ///< bytes of non-matmul parameters (embeddings, norm weights, layer scale)
  bool full() const { return s.mode == Mode::Full; }

  /// Reads what the node's input is, and records which graph input its main operand descends from.
  OpInput input_of(const graph::Node& n);
  int out_bytes(int node) const { return out_bytes_[static_cast<std::size_t>(node)]; }
  void set_out_bytes(int node, int bytes) { out_bytes_[static_cast<std::size_t>(node)] = bytes; }
  bool recorded(int node) const { return recorded_[static_cast<std::size_t>(node)]; }

  /// The matmul weights of a node that multiply `operand`, as its block declared them.
  std::vector<int> matmuls(const graph::Node& n, graph::Operand operand) const;
  /// Bytes of the gradients a full fine-tune gives the node's matmul weights on `operand` (none under LoRA, whose
  /// adapters' are small): an op's widest backward moment can come before its input projections make theirs.
  std::int64_t weight_gradient_bytes(const graph::Node& n, graph::Operand operand) const;
  /// Whether a matmul weight makes autograd keep its input: a trained weight (its gradient), an adapter (lora_A's
  /// gradient) or a 4-bit base that keeps it.
  bool saving(int t) const;
  /// Whether some weight reading `operand` keeps its input as it comes, not only an adapter's dropped copy.
  bool keeps_plain_input(const graph::Node& n, graph::Operand operand) const;
  /// Whether some weight reading `operand` keeps its input at all.
  bool keeps_input(const graph::Node& n, graph::Operand operand) const;

  /// A linear keeps its input for the weight gradient. Autocast casts an fp32 input separately for every linear that
  /// reads it (only weights are cached), so q, k and v each keep their own copy; a bf16 input is shared. LoRA with
  /// dropout keeps a mask and a dropped copy per adapted linear. `adapters_only`: the input itself is already kept
  /// (shared encoder states): only the adapters' own dropout copies are new. `one_linear`: the framework runs these
  /// matmuls as one linear (litgpt's fused qkv), whose adapter drops its input once for all of them.
  void linear_inputs(NodeActivations& a, const graph::Node& n, graph::Operand operand, std::int64_t elements,
                     int in_bytes, const std::string& what, bool adapters_only = false, bool one_linear = false);
  void linear_inputs(NodeActivations& a, const std::vector<int>& matmuls, std::int64_t elements, int in_bytes,
                     const std::string& what, bool adapters_only = false, bool one_linear = false);
  /// The closing projection (an attention's o_proj, an MLP's down_proj) reads the node's inner activations: it keeps
  /// them as a base linear does, plus the adapter's mask and dropped copy when LoRA with dropout adapts it.
  void output_projection_input(NodeActivations& a, const graph::Node& n, std::int64_t elements,
                               const std::string& what);
  /// Weights that read another node's output (graph::Operand::Memory: cross-attention's k/v, deformable attention's
  /// value projection): the states are kept once for every layer that reads them, unless autocast casts them again
  /// for each.
  void memory_inputs(NodeActivations& a, const graph::Node& n, const graph::Node& memory, std::int64_t elements,
                     const std::string& what);
  /// LoRA's A outputs (and DoRA's base and adapter outputs) of the node's adapted weights.
  void lora_bottlenecks(NodeActivations& a, const graph::Node& n, std::int64_t tokens);
  /// What lora_B keeps of `rows` adapted rows (summed over the adapters): lora_A's output, rank wide.
  void lora_a_outputs(NodeActivations& a, std::int64_t rows) const;
  /// Saved by the activation function itself, per element it produces; `bytes` overrides the compute dtype when the
  /// activation runs on a wider tensor (after an fp32 residual sum or frozen batch norm).
  void activation(NodeActivations& a, const std::string& act, std::int64_t elements, int bytes = 0);
  /// The dropout mask of the node's output, whose elements have `dropped_bytes` (0: the compute dtype).
  void output_dropout(NodeActivations& a, const graph::Node& n, int dropped_bytes = 0) const;
  int mask_bytes(int dropped_bytes) const { return dropout_mask_bytes(s, dropped_bytes); }
  /// Score-shaped tensors (attention_rules.hpp) over `elements` scores.
  static void keep(NodeActivations& a, const std::vector<ScoreTensor>& kept, std::int64_t elements);
  void softmax(NodeActivations& a, const std::string& what, std::int64_t elements, int bytes) const;

  /// Autograd saves one storage however many nodes keep it: a node whose output another already keeps (a ReLU's
  /// result, a convolution's or max pool's uncast input) marks it, and the next reader adds nothing.
  bool already_kept(const graph::Node& producer, int bytes) const {
    return kept_output_[static_cast<std::size_t>(producer.index)] == bytes;
  }
  void keep_output(const graph::Node& producer, int bytes) {
    kept_output_[static_cast<std::size_t>(producer.index)] = bytes;
  }
  /// ReLU, sigmoid and tanh keep their result for backward: when it is the node's output (no dropout after it) and in
  /// the output's dtype, the next node's kept input is the same storage.
  void keep_activation_result(const graph::Node& n, int out_bytes);

  /// A note for the user, once per plan for each key.
  void note_once(std::string_view key, std::string_view text) {
    if (first_note(key)) notes_.emplace_back(text);
  }
  /// Whether `key` has not been noted yet (and is from now on): a formatted note is made only then.
  bool first_note(std::string_view key);
  void note(std::string text) { notes_.push_back(std::move(text)); }
  /// The LoRA-dropout note, once the first dropped copy is kept.
  void note_lora_dropout();
  std::vector<std::string> take_notes() { return std::move(notes_); }
  LogitsTerms logits;

 private:
  bool quantized(int t) const;
  bool base_keeps_input(int t) const;
  bool lora_on(int t) const;
  bool keeps_plain_input(int t) const;

  std::vector<int> out_bytes_;
  std::vector<int> kept_output_;  ///< bytes per element of a node's output that autograd already keeps; 0 if none
  std::vector<bool> recorded_;    ///< per node: recorded_by_autograd
  std::vector<const graph::GraphInput*> origin_;
  std::vector<bool> memory_saved_;  ///< states already kept (uncast) by an earlier reader of them
  std::vector<std::string> notes_;
  std::set<std::string, std::less<>> noted_;
  bool lora_dropout_seen_ = false;
};

}  // namespace neurarch::plan
