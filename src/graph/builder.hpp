#pragma once
// Builds a Graph: every call that creates a node also declares the tensors it owns, so the
// tensor table and the layer graph cannot disagree.
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace neurarch::graph {

/// A Hugging Face module path. The only way family code makes a tensor name:
///   Scope("bert") / "encoder" / "layer" / 3  -> "bert.encoder.layer.3"
///   (Scope("bert") / "pooler")("dense.weight") -> "bert.pooler.dense.weight"
///   Scope("")("lm_head.weight")              -> "lm_head.weight"
class Scope {
 public:
  Scope() = default;
  explicit Scope(std::string path) : path_(std::move(path)) {}
  Scope operator/(std::string_view child) const;
  Scope operator/(std::int64_t index) const;
  std::string operator()(std::string_view leaf) const;
  const std::string& path() const { return path_; }
  bool empty() const { return path_.empty(); }

 private:
  std::string path_;
};

/// A node's output as seen by the next node.
struct Value {
  int node = -1;
  Shape shape;
};

/// A sub-model built inside another (LLaVA's language model, a tower of CLIP): while it is open,
/// tensor names and module paths get `module.` in front, node names `label` in front, and block
/// indices are shifted by `first_block`, so the inner family's code runs unchanged and its names,
/// layers and blocks stay distinct from the outer model's.
struct Nest {
  std::string module;  ///< e.g. "language_model"; "" keeps names as they are
  std::string label;   ///< e.g. "LM_"
  int first_block = 0;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(DType param_dtype = DType::F32) : param_dtype_(param_dtype) {}

  /// A data argument of forward(). The first one declared is the main input (see set_main_input);
  /// `name` defaults to forward()'s argument: input_ids, pixel_values, input_values (audio), input_features.
  Value input(Shape shape, std::string kind, std::string name = "");
  /// Makes the input `v` the one Graph::input_shape / input_kind describe.
  void set_main_input(const Value& v);
  /// A node whose output shape the caller has computed from its inputs.
  Value node(NodeType type, std::string name, Shape out, std::initializer_list<Value> inputs,
             const Scope& module = Scope());

  /// A parameter `owner` reads; `role` says what it is to that op (see TensorRole), so the planners never
  /// guess it from the name; `operand`, which activation a matmul weight multiplies (see Operand).
  void parameter(const Value& owner, std::string name, Shape shape, TensorRole role,
                 Operand operand = Operand::Input);
  void buffer(const Value& owner, std::string name, Shape shape, DType dtype);
  /// Marks the parameters `owner` has declared so far as frozen (requires_grad False in the reference).
  void freeze(const Value& owner);
  /// Marks every parameter declared so far whose full state-dict name `frozen` accepts.
  void freeze_if(const std::function<bool(std::string_view name)>& frozen);
  /// A parameter that aliases `target` (tied embeddings): used by the node, not saved.
  /// `role` is what the alias is to `owner`, which may differ from the target's (a head tied to the embedding
  /// table multiplies by it: Linear).
  void tied(const Value& owner, std::string name, Shape shape, std::string target, TensorRole role,
            Operand operand = Operand::Input);
  /// Records the first reason the graph cannot run; later failures are consequences.
  void fail(const Value& at, std::string reason);
  /// A remark that does not stop the forward pass (e.g. positions extrapolated by RoPE).
  void note(std::string text);
  /// An older checkpoint layout the reference still loads: names at module `from` are read at `to`.
  void checkpoint_rename(std::string from, std::string to) {
    graph_.checkpoint_renames.push_back({std::move(from), std::move(to)});
  }

  /// Nodes created after this call belong to repeated block `index` (-1: none), shifted by the open nests.
  void set_block(int index) { block_ = index < 0 ? -1 : index + block_offset_; }
  /// Opens a sub-model (see Nest); close it with close_nest(), or use Nested.
  void open_nest(const Nest& nest);
  void close_nest();
  /// One past the highest block index used so far: where a following sub-model's blocks can start.
  int next_block() const { return next_block_; }
  Node& at(const Value& v) { return graph_.nodes.at(static_cast<std::size_t>(v.node)); }
  /// What has been built so far (a composite model finds what a nested sub-model made).
  const Graph& graph() const { return graph_; }
  DType param_dtype() const { return param_dtype_; }

  /// Appends the Output node and hands over the graph.
  Graph finish(const Value& last);

 private:
  std::string nested(std::string name) const;

  Graph graph_;
  DType param_dtype_;
  int block_ = -1;
  int next_block_ = 0;
  std::vector<Nest> nests_;
  std::string module_prefix_, label_prefix_;
  int block_offset_ = 0;
};

/// Keeps a Nest open for the lifetime of the object.
class Nested {
 public:
  Nested(GraphBuilder& b, const Nest& nest) : b_(b) { b_.open_nest(nest); }
  ~Nested() { b_.close_nest(); }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;

 private:
  GraphBuilder& b_;
};

}  // namespace neurarch::graph
