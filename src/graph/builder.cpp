#include "graph/builder.hpp"

#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "graph/budget.hpp"

namespace neurarch::graph {

Scope Scope::operator/(std::string_view child) const {
  return Scope(path_.empty() ? std::string(child) : path_ + "." + std::string(child));
}

Scope Scope::operator/(std::int64_t index) const { return *this / std::string_view(std::to_string(index)); }

std::string Scope::operator()(std::string_view leaf) const {
  return path_.empty() ? std::string(leaf) : path_ + "." + std::string(leaf);
}

Value GraphBuilder::input(Shape shape, std::string kind, std::string name) {
  // forward()'s own argument names, so the report says what a user passes.
  if (name.empty())
    name = kind == "tokens"           ? "input_ids"
           : kind == "pixels"         ? "pixel_values"
           : kind == "audio"          ? "input_values"
           : kind == "audio_features" ? "input_features"
                                      : kind;
  const bool first = graph_.inputs.empty();
  if (first) {
    graph_.input_shape = shape;
    graph_.input_kind = kind;
  }
  // The single-input models keep their node name "Input"; later inputs are told apart by argument.
  std::string node_name = first ? std::string("Input") : "Input_" + name;
  // Input nodes are the model's, not a nested sub-model's: no label, no module.
  const std::string label = std::exchange(label_prefix_, std::string());
  auto v = node(NodeType::Input, std::move(node_name), shape, {});
  label_prefix_ = label;
  at(v).path.clear();
  at(v).block = -1;
  graph_.inputs.push_back(GraphInput{std::move(name), std::move(kind), std::move(shape), v.node});
  return v;
}

void GraphBuilder::set_main_input(const Value& v) {
  const GraphInput* in = graph_.input_at(v.node);
  if (!in) return;
  graph_.input_shape = in->shape;
  graph_.input_kind = in->kind;
}

void GraphBuilder::open_nest(const Nest& nest) {
  nests_.push_back(nest);
  if (!nest.module.empty()) module_prefix_ += nest.module + ".";
  label_prefix_ += nest.label;
  block_offset_ += nest.first_block;
}

void GraphBuilder::close_nest() {
  if (nests_.empty()) return;
  const Nest nest = nests_.back();
  nests_.pop_back();
  if (!nest.module.empty()) module_prefix_.resize(module_prefix_.size() - nest.module.size() - 1);
  label_prefix_.resize(label_prefix_.size() - nest.label.size());
  block_offset_ -= nest.first_block;
  block_ = -1;
}

std::string GraphBuilder::nested(std::string name) const {
  return module_prefix_.empty() || name.empty() ? name : module_prefix_ + name;
}

namespace {
// The build stops the moment it passes its budget: memory and time stay bounded whatever the config says.
void check_node_budget(std::size_t nodes) {
  const auto& budget = current_budget();
  if (static_cast<std::int64_t>(nodes) >= budget.max_nodes)
    throw Error(ErrorKind::InvalidInput, "config",
                fmt::format("the model would have more than {} nodes, the build limit; the config's sizes are absurd",
                            budget.max_nodes));
  if (nodes % 1024 == 0) check_deadline("building the graph");
}

void check_tensor_budget(std::size_t tensors) {
  const auto& budget = current_budget();
  if (static_cast<std::int64_t>(tensors) >= budget.max_tensors)
    throw Error(ErrorKind::InvalidInput, "config",
                fmt::format("the model would have more than {} tensors, the build limit; the config's sizes are absurd",
                            budget.max_tensors));
}
}  // namespace

Value GraphBuilder::node(NodeType type, std::string name, Shape out, std::initializer_list<Value> inputs,
                         const Scope& module) {
  check_node_budget(graph_.nodes.size());
  Node n;
  n.index = static_cast<int>(graph_.nodes.size());
  n.name = label_prefix_ + std::move(name);
  n.type = type;
  n.out = out;
  for (const auto& in : inputs) n.inputs.push_back(in.node);
  n.block = block_;
  if (block_ >= next_block_) next_block_ = block_ + 1;
  n.path = nested(module.path());
  graph_.nodes.push_back(std::move(n));
  return Value{static_cast<int>(graph_.nodes.size()) - 1, std::move(out)};
}

namespace {
// Refuses shapes whose element count is absurd or overflows before anyone multiplies them.
void check_shape(const std::string& name, const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw Error(ErrorKind::InvalidInput, name, fmt::format("negative dimension {}", d));
    if (d != 0 && n > limits::kMaxScalars / d)
      throw Error(ErrorKind::InvalidInput, name, "tensor has more than 2^40 elements; the config's sizes are absurd");
    n *= d;
  }
}
}  // namespace

void GraphBuilder::parameter(const Value& owner, std::string name, Shape shape, TensorRole role, Operand operand) {
  check_tensor_budget(graph_.tensors.size());
  name = nested(std::move(name));
  check_shape(name, shape);
  TensorSpec t{std::move(name), std::move(shape), param_dtype_, TensorKind::Parameter, owner.node, {}};
  t.role = role;
  t.operand = operand;
  at(owner).tensors.push_back(static_cast<int>(graph_.tensors.size()));
  graph_.tensors.push_back(std::move(t));
}

void GraphBuilder::buffer(const Value& owner, std::string name, Shape shape, DType dtype) {
  check_tensor_budget(graph_.tensors.size());
  name = nested(std::move(name));
  check_shape(name, shape);
  TensorSpec t{std::move(name), std::move(shape), dtype, TensorKind::Buffer, owner.node, {}};
  at(owner).tensors.push_back(static_cast<int>(graph_.tensors.size()));
  graph_.tensors.push_back(std::move(t));
}

void GraphBuilder::freeze(const Value& owner) {
  for (int t : at(owner).tensors) {
    auto& spec = graph_.tensors[static_cast<std::size_t>(t)];
    if (spec.kind == TensorKind::Parameter) spec.frozen = true;
  }
}

void GraphBuilder::freeze_if(const std::function<bool(std::string_view name)>& frozen) {
  for (auto& spec : graph_.tensors)
    if (spec.kind == TensorKind::Parameter && frozen(spec.name)) spec.frozen = true;
}

void GraphBuilder::tied(const Value& owner, std::string name, Shape shape, std::string target, TensorRole role,
                        Operand operand) {
  check_tensor_budget(graph_.tensors.size());
  TensorSpec t{nested(std::move(name)), std::move(shape), param_dtype_, TensorKind::Parameter, owner.node,
               nested(std::move(target))};
  t.role = role;
  t.operand = operand;
  at(owner).tensors.push_back(static_cast<int>(graph_.tensors.size()));
  graph_.tensors.push_back(std::move(t));
}

void GraphBuilder::fail(const Value& at_value, std::string reason) {
  if (!graph_.forward.ok) return;
  graph_.forward = ForwardCheck{false, at_value.node, std::move(reason)};
}

void GraphBuilder::note(std::string text) { graph_.notes.push_back(std::move(text)); }

Graph GraphBuilder::finish(const Value& last) {
  set_block(-1);
  node(NodeType::Output, "Output", last.shape, {last});
  // Guard the model total as well as each tensor: 2^40 scalars is 4 TB of fp32.
  std::int64_t total = 0;
  for (const auto& t : graph_.tensors) {
    total += t.scalars();
    if (total > limits::kMaxScalars)
      throw Error(ErrorKind::InvalidInput, "config", "model has more than 2^40 parameters; the config's sizes are absurd");
  }
  return std::move(graph_);
}

}  // namespace neurarch::graph
