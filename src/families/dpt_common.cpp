#include "families/dpt_common.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"

namespace neurarch::families::dpt {

using namespace blocks;
using graph::NodeType;

std::vector<double> factor_list(const Config& c, std::string_view key, const std::vector<double>& fallback) {
  const auto* v = c.raw({key});
  if (!v || v->is_null()) return fallback;
  std::vector<double> out;
  if (v->is_array())
    for (const auto& e : *v) {
      if (!e.is_number() || !(e.get<double>() > 0)) {
        out.clear();
        break;
      }
      out.push_back(e.get<double>());
    }
  if (out.empty() || out.size() != v->size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                "expected a list of positive numbers");
  return out;
}

Readout read_readout(const Config& c) {
  const std::string type = c.text({"readout_type"}, "project");
  if (type == "ignore") return Readout::Ignore;
  if (type == "add") return Readout::Add;
  if (type == "project") return Readout::Project;
  throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'readout_type'", c.origin()),
              fmt::format("'{}' is not one of ignore, add, project", type));
}

std::size_t python_index(const Config& c, std::string_view key, std::int64_t index, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  const std::int64_t at = index < 0 ? n + index : index;
  if (at < 0 || at >= n)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("index {} is outside the {} fused feature maps", index, size));
  return static_cast<std::size_t>(at);
}

namespace dpt_common_impl {
namespace {

// The patch tokens of one layer as a [C, h, w] map, with DPT's readout of the CLS token applied.
Value readout_map(GraphBuilder& b, const Value& x, std::size_t i, const NeckSpec& s) {
  const std::int64_t patches = s.grid_h * s.grid_w, width = s.token_width;
  Value tokens{x.node, {patches, width}};
  const Scope stage = s.neck / "reassemble_stage";
  if (s.readout == Readout::Project) {
    // [patches, 2C]: every patch token concatenated with the CLS token, then Linear + activation.
    Value joined{x.node, {patches, 2 * width}};
    tokens = dense(b, joined, fmt::format("Readout_Project_{}", i), stage / "readout_projects" / static_cast<std::int64_t>(i) / 0,
                   2 * width, width, true, s.readout_activation);
  } else if (s.readout == Readout::Add) {
    tokens = b.node(NodeType::Add, fmt::format("Readout_Add_{}", i), {patches, width}, {x});
  }
  if (x.shape.size() != 2 || x.shape[0] != patches + 1 || x.shape[1] != width)
    b.fail(tokens, fmt::format("expects {} patch tokens plus CLS of width {}, receives [{}]", patches, width,
                               fmt::join(x.shape, ", ")));
  return Value{tokens.node, {width, s.grid_h, s.grid_w}};
}

// DPTPreActResidualLayer: ReLU -> conv3x3 [-> BN] -> ReLU -> conv3x3 [-> BN], added to the input.
Value residual_unit(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const NeckSpec& s) {
  const std::int64_t f = s.fusion;
  Value h = conv2d(b, x, name + "_Conv1",
                   {.module = module / "convolution1", .in = f, .out = f, .kernel = 3, .padding = 1, .bias = s.residual_bias});
  if (s.residual_batch_norm)
    h = batch_norm(b, h, name + "_BatchNorm1", module / "batch_norm1", "relu");
  else
    b.at(h).activation = "relu";
  h = conv2d(b, h, name + "_Conv2",
             {.module = module / "convolution2", .in = f, .out = f, .kernel = 3, .padding = 1, .bias = s.residual_bias});
  if (s.residual_batch_norm) h = batch_norm(b, h, name + "_BatchNorm2", module / "batch_norm2");
  return add(b, h, x, name + "_Add");
}

// The first fusion layer has no finer map to add, yet stores residual_layer1 like the others: its tensors go
// on a node that claims no compute for them, idle (no gradient, no optimizer state).
void unused_residual_unit(GraphBuilder& b, const Value& owner, const Scope& module, const NeckSpec& s) {
  for (const char* conv : {"convolution1", "convolution2"}) {
    b.parameter(owner, (module / conv)("weight"), {s.fusion, s.fusion, 3, 3}, graph::TensorRole::Conv,
                graph::Operand::Idle);
    if (s.residual_bias)
      b.parameter(owner, (module / conv)("bias"), {s.fusion}, graph::TensorRole::Bias, graph::Operand::Idle);
  }
  if (!s.residual_batch_norm) return;
  for (const char* bn : {"batch_norm1", "batch_norm2"}) {
    b.parameter(owner, (module / bn)("weight"), {s.fusion}, graph::TensorRole::Norm, graph::Operand::Idle);
    b.parameter(owner, (module / bn)("bias"), {s.fusion}, graph::TensorRole::Bias, graph::Operand::Idle);
    b.buffer(owner, (module / bn)("running_mean"), {s.fusion}, b.param_dtype());
    b.buffer(owner, (module / bn)("running_var"), {s.fusion}, b.param_dtype());
    b.buffer(owner, (module / bn)("num_batches_tracked"), {}, DType::I64);
  }
}

}  // namespace
}  // namespace dpt_common_impl
using namespace dpt_common_impl;

std::vector<Value> neck(GraphBuilder& b, const std::vector<Value>& tokens, const NeckSpec& s) {
  b.set_block(-1);
  const Scope stage = s.neck / "reassemble_stage";
  std::vector<Value> maps;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    const Scope layer = stage / "layers" / index;
    const std::int64_t channels = s.neck_hidden[i];
    Value map = dpt_common_impl::readout_map(b, tokens[i], i, s);
    map = conv2d(b, map, fmt::format("Reassemble_Projection_{}", i),
                 {.module = layer / "projection", .in = s.token_width, .out = channels, .kernel = 1});
    const double factor = s.factors[i];
    if (factor > 1) {
      const auto k = static_cast<std::int64_t>(factor);
      map = conv_transpose2d(b, map, fmt::format("Reassemble_Resize_{}", i),
                             {.module = layer / "resize", .in = channels, .out = channels, .kernel = k, .stride = k});
    } else if (factor < 1) {
      map = conv2d(b, map, fmt::format("Reassemble_Resize_{}", i),
                   {.module = layer / "resize", .in = channels, .out = channels, .kernel = 3,
                    .stride = static_cast<std::int64_t>(1 / factor), .padding = 1});
    }
    map = conv2d(b, map, fmt::format("Neck_Conv_{}", i),
                 {.module = s.neck / "convs" / index, .in = channels, .out = s.fusion, .kernel = 3, .padding = 1,
                  .bias = false});
    maps.push_back(map);
  }

  std::vector<Value> fused_maps;
  Value fused;
  const std::size_t n = maps.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Scope layer = s.neck / "fusion_stage" / "layers" / static_cast<std::int64_t>(i);
    const std::string name = fmt::format("Fusion_{}", i);
    const Value& feature = maps[n - 1 - i];
    Value h;
    if (i == 0) {
      h = feature;
    } else {
      Value residual = feature;
      if (residual.shape != fused.shape)
        residual = resize(b, residual, name + "_Resize_Residual", fused.shape[1], fused.shape[2]);
      Value unit = dpt_common_impl::residual_unit(b, residual, name + "_Residual1", layer / "residual_layer1", s);
      h = add(b, fused, unit, name + "_Add");
    }
    h = dpt_common_impl::residual_unit(b, h, name + "_Residual2", layer / "residual_layer2", s);
    if (i == 0) dpt_common_impl::unused_residual_unit(b, h, layer / "residual_layer1", s);
    if (s.fusion_extra) h = s.fusion_extra(b, h, name, layer);
    std::int64_t height = 2 * h.shape[1], width = 2 * h.shape[2];
    if (s.upsample_to_next && i + 1 < n) {
      height = maps[n - 2 - i].shape[1];
      width = maps[n - 2 - i].shape[2];
    }
    h = resize(b, h, name + "_Upsample", height, width);
    fused = conv2d(b, h, name + "_Projection",
                   {.module = layer / "projection", .in = s.fusion, .out = s.fusion, .kernel = 1});
    fused_maps.push_back(fused);
  }
  return fused_maps;
}

}  // namespace neurarch::families::dpt
