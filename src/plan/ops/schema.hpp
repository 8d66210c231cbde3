#pragma once
// Each node type's rules, declared once and together, as ONNX declares an op's schema: whether its matmul-role
// weights run as matmuls (autocast copies them, LoRA adapts them), what autograd keeps for its backward, and the
// compute it does beyond those weights. The activation plan (activations.cpp), the weight roles (weights.cpp) and
// the cost model (cost.cpp) read these and nothing else about an op; each op's rules are in its own file here.
//
// What an op allocates only while it runs (eager attention's score-sized temporaries and their gradients, an MLP's
// intermediate gradients) is declared here too; the loss's up-cast and buffers (setup_rules' loss_memory), the 4-bit
// dequantization, cuBLAS's workspace and the gradients flowing between nodes are the step's (memory.cpp).
#include <cstdint>

#include "graph/graph.hpp"
#include "plan/setup.hpp"

namespace neurarch::plan {

struct NodeActivations;
class OpContext;
struct OpInput;

/// Rows of a tensor: the product of every axis but the last (1 for a vector).
inline std::int64_t rows_of(const graph::Shape& s) {
  if (s.size() < 2) return 1;
  std::int64_t t = 1;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) t *= s[i];
  return t;
}

/// What the cost model knows of a node when it asks the op for its own work.
struct OpCostInput {
  const graph::Node& node;
  const Setup& setup;
  bool autocast = false;
  int compute_bytes = 2;         ///< bytes of the activations it reads and writes
  double tokens = 1;             ///< rows its weights run over
  std::int64_t input_rows = 1;   ///< rows of its first input
  double output_elements = 1;    ///< per sample
};

/// An op's compute beyond its matmul weights (the attention product, a scan, an FFT), per sample.
struct OpWork {
  double flops_forward = 0;
  double flops_backward = 0;
  double traffic_bytes = 0;  ///< activation bytes written and read back beyond the node's input and output
};

/// What an op allocates only while it runs, per sample, beyond what it keeps for backward: at its widest moment in
/// forward, and in backward beyond its output's gradient (memory.cpp's in-flight gradients). An estimate of the
/// moment, not of every allocation: each op says how it steps.
struct OpTransients {
  std::int64_t forward = 0;
  std::int64_t backward = 0;
  /// Bytes per step (not per sample) of the node's weight gradients that its widest backward moment precedes: the
  /// step counts them with the node, so they come off the moment (an MLP's up projection, attention's q/k/v).
  std::int64_t gradients_after = 0;
};

struct OpSchema {
  /// Its weights declared with a matmul role (graph::is_matmul_role) run as matmuls: autocast keeps a 16-bit copy,
  /// LoRA may adapt them, the cost model counts 2 FLOPs per weight and row.
  bool matmul = false;
  /// What autograd keeps for the node's backward, per sample, added to `a`; returns the bytes per element of the
  /// node's output.
  int (*saved)(OpContext& ctx, const OpInput& x, NodeActivations& a) = nullptr;
  /// Its own work beyond the matmul weights; null when it has none.
  OpWork (*work)(const OpCostInput& x) = nullptr;
  /// What it allocates only while it runs; null when that is nothing beyond its output and its input's gradient.
  OpTransients (*transients)(const OpContext& ctx, const OpInput& x) = nullptr;
};

/// The schema of a node type (ops/registry.cpp).
const OpSchema& op_schema(graph::NodeType type);

}  // namespace neurarch::plan
