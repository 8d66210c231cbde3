#include "plan/ops/context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "plan/setup_rules.hpp"

namespace neurarch::plan {
using graph::Node;

OpContext::OpContext(const graph::Graph& graph, const Setup& setup, const std::vector<WeightRole>& weight_roles)
    : g(graph), s(setup), roles(weight_roles), out_bytes_(graph.nodes.size(), 4), kept_output_(graph.nodes.size(), 0),
      recorded_(recorded_by_autograd(graph)), origin_(graph.nodes.size()), memory_saved_(graph.nodes.size(), false) {
  autocast = precision_rule(s.precision).autocast;
  params = model_parameter_bytes(s);
  compute = compute_bytes(s);
}

OpInput OpContext::input_of(const Node& n) {
  OpInput x{n};
  x.in = n.inputs.empty() ? nullptr : &g.nodes[static_cast<std::size_t>(n.inputs[0])];
  x.in_bytes = x.in ? out_bytes(x.in->index) : 4;
  if (x.in) x.in_shape = x.in->out;
  x.tokens = rows_of(x.in_shape.empty() ? n.out : x.in_shape);
  x.d_in = x.in_shape.empty() ? 0 : x.in_shape.back();
  x.d = n.out.empty() ? 0 : n.out.back();
  // Which input a node's main operand descends from: a text tower's lookups index token ids, a vision tower's
  // positions are added to pixels' patches.
  const graph::GraphInput* origin = n.type == graph::NodeType::Input ? g.input_at(n.index)
                                    : x.in                            ? origin_[static_cast<std::size_t>(x.in->index)]
                                                                      : nullptr;
  origin_[static_cast<std::size_t>(n.index)] = origin;
  x.from_tokens = origin ? origin->kind == "tokens" : g.input_kind == "tokens";
  return x;
}

std::vector<int> OpContext::matmuls(const Node& n, graph::Operand operand) const {
  std::vector<int> out;
  for (int t : n.tensors)
    if (roles[static_cast<std::size_t>(t)].matmul && g.tensors[static_cast<std::size_t>(t)].operand == operand)
      out.push_back(t);
  return out;
}

std::int64_t OpContext::weight_gradient_bytes(const Node& n, graph::Operand operand) const {
  if (!full()) return 0;
  std::int64_t elements = 0;
  for (int t : matmuls(n, operand)) {
    const auto& r = roles[static_cast<std::size_t>(t)];
    if (r.trained && !r.idle) elements += g.tensors[static_cast<std::size_t>(t)].scalars();
  }
  return elements * precision_rule(s.precision).parameter_bytes;
}

bool OpContext::saving(int t) const {
  const auto& r = roles[static_cast<std::size_t>(t)];
  return r.trained || r.lora_target || quantized(t);
}

// A 4-bit base linear that keeps its input: bitsandbytes < 0.43.2's MatMul4Bit keeps it whenever the input needs a
// gradient (ctx.tensors = (A, B), autograd/_functions.py), frozen weight or not; from 0.43.2 on it keeps the packed
// weight alone (ctx.tensors = (None, B), bitsandbytes#1270).
bool OpContext::quantized(int t) const { return roles[static_cast<std::size_t>(t)].quantized && s.qlora_keeps_input; }

// Whether the base matmul itself keeps its input: a trained weight (its gradient) or a 4-bit one.
bool OpContext::base_keeps_input(int t) const {
  const auto& r = roles[static_cast<std::size_t>(t)];
  return r.trained || quantized(t);
}

bool OpContext::lora_on(int t) const { return roles[static_cast<std::size_t>(t)].lora_target && !full(); }

bool OpContext::keeps_plain_input(int t) const {
  if (!saving(t)) return false;
  return !lora_on(t) || base_keeps_input(t) || s.lora_dropout <= 0;
}

bool OpContext::keeps_plain_input(const Node& n, graph::Operand operand) const {
  const auto readers = matmuls(n, operand);
  return std::any_of(readers.begin(), readers.end(), [&](int t) { return keeps_plain_input(t); });
}

bool OpContext::keeps_input(const Node& n, graph::Operand operand) const {
  const auto readers = matmuls(n, operand);
  return std::any_of(readers.begin(), readers.end(), [&](int t) { return saving(t); });
}

void OpContext::linear_inputs(NodeActivations& a, const Node& n, graph::Operand operand, std::int64_t elements,
                              int in_bytes, const std::string& what, bool adapters_only, bool one_linear) {
  linear_inputs(a, matmuls(n, operand), elements, in_bytes, what, adapters_only, one_linear);
}

void OpContext::linear_inputs(NodeActivations& a, const std::vector<int>& readers_of_input, std::int64_t elements,
                              int in_bytes, const std::string& what, bool adapters_only, bool one_linear) {
  int readers = 0, lora_readers = 0;
  for (int t : readers_of_input) {
    if (!saving(t)) continue;
    const bool adapted = lora_on(t);
    if (adapted) ++lora_readers;
    if (!adapted || base_keeps_input(t)) ++readers;
  }
  if (one_linear) {
    lora_readers = std::min(lora_readers, 1);
    readers = std::min(readers, 1);
  }
  const bool cast = autocast && in_bytes > 2;
  if (lora_readers > 0 && s.lora_dropout > 0) {
    // PEFT's Linear.forward casts the input to lora_A's dtype before the dropout (_cast_input_dtype,
    // peft/tuners/lora/layer.py): an fp32 adapter drops an fp32 copy, so the CPU's noise mask is fp32 too;
    // torchtune / litgpt drop the input as it comes. lora_A then keeps the dropped values, cast to bf16 under
    // autocast.
    const int dropped = s.lora_fp32_adapters ? adapter_bytes(s) : in_bytes;
    a.saved.push_back({what + ": LoRA dropout masks", elements * lora_readers, mask_bytes(dropped)});
    a.saved.push_back({what + ": LoRA dropped copies", elements * lora_readers, autocast ? compute : dropped});
    lora_dropout_seen_ = true;
  } else {
    readers += lora_readers;
  }
  if (readers == 0 || adapters_only) return;
  if (cast)
    a.saved.push_back({what + " (bf16 casts)", elements * readers, 2});
  else
    a.saved.push_back({what, elements, in_bytes});
}

void OpContext::output_projection_input(NodeActivations& a, const Node& n, std::int64_t elements,
                                        const std::string& what) {
  linear_inputs(a, n, graph::Operand::Inner, elements, compute, what);
}

void OpContext::memory_inputs(NodeActivations& a, const Node& n, const Node& memory, std::int64_t elements,
                              const std::string& what) {
  const int memory_bytes = out_bytes(memory.index);
  const bool cast = autocast && memory_bytes > 2;
  const auto i = static_cast<std::size_t>(memory.index);
  const std::size_t before = a.saved.size();
  // Already kept uncast by an earlier reader: only the adapters' dropout copies would be new.
  linear_inputs(a, n, graph::Operand::Memory, elements, memory_bytes, what, !cast && memory_saved_[i]);
  if (!cast && a.saved.size() > before) memory_saved_[i] = true;
}

void OpContext::lora_bottlenecks(NodeActivations& a, const Node& n, std::int64_t tokens) {
  std::int64_t adapted = 0, adapted_outputs = 0;
  for (int t : n.tensors)
    if (lora_on(t) && !roles[static_cast<std::size_t>(t)].idle) {  // an idle adapter runs on nothing
      ++adapted;
      adapted_outputs += g.tensors[static_cast<std::size_t>(t)].shape.front();
    }
  // DoRA rescales base and adapter outputs by magnitude / ||W + BA||: the product keeps both.
  if (s.dora && adapted_outputs)
    a.saved.push_back({"DoRA base and adapter outputs", 2 * tokens * adapted_outputs, compute});
  if (adapted) lora_a_outputs(a, tokens * adapted);
}

void OpContext::lora_a_outputs(NodeActivations& a, std::int64_t rows) const {
  // Without autocast the adapter runs in its own dtype (PEFT casts the input to an fp32 adapter's).
  a.saved.push_back({"LoRA A outputs", rows * s.lora_rank, autocast ? compute : adapter_bytes(s)});
}

void OpContext::activation(NodeActivations& a, const std::string& act, std::int64_t elements, int bytes) {
  const int c = bytes > 0 ? bytes : compute;
  if (act == "gelu_new" || act == "gelu_fast") {
    // Python tanh formula: keeps x, tanh(...), 0.5*x and 1+tanh(...); pow and tanh run in fp32 under autocast.
    const int wide = autocast ? 4 : c;
    a.saved.push_back({"GELU (tanh formula) intermediates", elements, 2 * c + 2 * wide});
  } else if (act == "clamped_swiglu") {
    // GPT-OSS's experts: clamp keeps its input (gate_up's output, both interleaved halves), sigmoid its output, and
    // the product its clamped gate; the GLU product terms are counted by the caller.
    a.saved.push_back({"clamped SwiGLU: gate_up output (clamp input)", elements * 2, c});
    a.saved.push_back({"clamped SwiGLU: clamped gate and sigmoid output", elements * 2, c});
  } else if (act == "glu") {
    // nn.GLU keeps its input, twice as wide as the `elements` it produces.
    a.saved.push_back({"GLU input", elements * 2, c});
  } else if (act == "quick_gelu") {
    a.saved.push_back({"quick-GELU input and sigmoid", elements * 2, c});
  } else if (!act.empty()) {
    a.saved.push_back({act + " input", elements, c});
  }
}

void OpContext::output_dropout(NodeActivations& a, const Node& n, int dropped_bytes) const {
  if (n.dropout > 0)
    a.saved.push_back({"dropout mask", rows_of(n.out) * n.out.back(), mask_bytes(dropped_bytes ? dropped_bytes : compute)});
}

void OpContext::keep(NodeActivations& a, const std::vector<ScoreTensor>& kept, std::int64_t elements) {
  for (const auto& t : kept) a.saved.push_back({t.what, elements * t.count, t.bytes});
}

void OpContext::softmax(NodeActivations& a, const std::string& what, std::int64_t elements, int bytes) const {
  keep(a, softmax_kept(s, what, bytes), elements);
}

void OpContext::keep_activation_result(const Node& n, int bytes) {
  const bool saves_result = n.activation == "relu" || n.activation == "sigmoid" || n.activation == "tanh";
  if (recorded(n.index) && saves_result && n.dropout <= 0) keep_output(n, bytes);
}

bool OpContext::first_note(std::string_view key) {
  if (noted_.contains(key)) return false;
  noted_.emplace(key);
  return true;
}

void OpContext::note_lora_dropout() {
  if (lora_dropout_seen_ && first_note("lora-dropout"))
    note(fmt::format("LoRA dropout {:.2f} keeps a dropped copy and a mask of every adapted input", s.lora_dropout));
}

}  // namespace neurarch::plan
