#pragma once
// Builds a Graph: every call that creates a node also declares the tensors it owns, so the
// tensor table and the layer graph cannot disagree.
#include <initializer_list>
#include <string>
#include <string_view>

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

class GraphBuilder {
 public:
  explicit GraphBuilder(DType param_dtype = DType::F32) : param_dtype_(param_dtype) {}

  /// The first call declares the main input; later ones further inputs (decoder tokens), each
  /// under its own node name.
  Value input(Shape shape, std::string kind, std::string name = "Input");
  /// A node whose output shape the caller has computed from its inputs.
  Value node(NodeType type, std::string name, Shape out, std::initializer_list<Value> inputs,
             const Scope& module = Scope());

  void parameter(const Value& owner, std::string name, Shape shape);
  void buffer(const Value& owner, std::string name, Shape shape, DType dtype);
  /// A parameter that aliases `target` (tied embeddings): used by the node, not saved.
  void tied(const Value& owner, std::string name, Shape shape, std::string target);
  /// Records the first reason the graph cannot run; later failures are consequences.
  void fail(const Value& at, std::string reason);
  /// A remark that does not stop the forward pass (e.g. positions extrapolated by RoPE).
  void note(std::string text);

  /// Nodes created after this call belong to repeated block `index` (-1: none).
  void set_block(int index) { block_ = index; }
  Node& at(const Value& v) { return graph_.nodes.at(static_cast<std::size_t>(v.node)); }
  DType param_dtype() const { return param_dtype_; }

  /// Appends the Output node and hands over the graph.
  Graph finish(const Value& last);

 private:
  Graph graph_;
  DType param_dtype_;
  int block_ = -1;
};

}  // namespace neurarch::graph
