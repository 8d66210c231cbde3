// DeepSeek-VL-Hybrid (DeepseekVLHybridModel, DeepseekVLHybridForConditionalGeneration in
// models/deepseek_vl_hybrid/modeling_deepseek_vl_hybrid.py + configuration_deepseek_vl_hybrid.py; the shared ground
// truth is transformers 4.57.6's): DeepSeek-VL (deepseek_vl.cpp: the SigLIP tower, the language model, lm_head)
// plus a high-resolution SAM tower, and an aligner that joins both:
// - high_res_vision_model: SamVisionModel of high_res_vision_config (`vision_encoder.*`, sam_common), whose neck
//   output is the last hidden state; the hidden state after layer global_attn_indexes[0] goes through a second neck
//   of the same shape (high_res_vision_neck);
// - high_res_vision_proj, applied to both maps with the same weights: bilinear resize to 4 × the SigLIP grid, two
//   bias-free 3×3 stride-2 convolutions to 4 × output_channels; the two are summed, the second scaled by the
//   learned high_res_vision_alpha [1];
// - aligner: vision_proj (SigLIP width -> text / 2) and high_res_vision_proj (4 × output_channels -> text / 2),
//   concatenated (high-resolution half first), GELU, proj (text -> text), all with biases.
#include <fmt/format.h>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/convnext_common.hpp"
#include "families/deepseek_vl.hpp"
#include "families/sam_common.hpp"

namespace neurarch::families {
namespace deepseek_vl_hybrid_impl {
namespace {

using namespace blocks;

std::int64_t first_global_layer(const Config& c) {
  const auto* listed = c.raw({"global_attn_indexes"});
  if (!listed) return 2;  // SamVisionConfig's [2, 5, 8, 11]
  if (!listed->is_array() || listed->empty() || !(*listed)[0].is_number_integer() || (*listed)[0].get<std::int64_t>() < 0)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'global_attn_indexes'", c.origin()),
                "expected a non-empty list of layer indices");
  return (*listed)[0].get<std::int64_t>();
}

// The node named `name` built so far (a layer's output inside a nested tower).
Value find_node(const GraphBuilder& b, const std::string& name) {
  for (const auto& n : b.graph().nodes)
    if (n.name == name) return Value{n.index, n.out};
  return {};
}

// high_res_vision_proj over a [channels, H, W] map; `declare` is false for its second use (shared weights).
Value high_res_projection(GraphBuilder& b, const Value& map, const std::string& name, std::int64_t side,
                          std::int64_t channels, bool declare) {
  const Scope proj("high_res_vision_proj");
  auto x = resize(b, map, name + "_Resize", 4 * side, 4 * side);
  auto conv = [&](const Value& in, const char* module, std::int64_t from, std::int64_t to) {
    const auto out_side = (in.shape[1] + 2 - 3) / 2 + 1;
    auto h = b.node(graph::NodeType::Conv2d, fmt::format("{}_{}", name, module), {to, out_side, out_side}, {in},
                    proj / module);
    b.at(h).spatial = graph::SpatialAttrs{3, 3, 2, 1, 1, false};
    if (declare) b.parameter(h, (proj / module)("weight"), {to, from, 3, 3}, graph::TensorRole::Conv);
    return h;
  };
  x = conv(x, "conv1", channels, 2 * channels);
  return conv(x, "conv2", 2 * channels, 4 * channels);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const llava::Parts p = deepseek_vl::read_parts(c);
  const Config high_res = c.child("high_res_vision_config", {{"model_type", "sam_vision_model"}});
  if (const std::string type = high_res.text({"model_type"}, "sam_vision_model"); type != "sam_vision_model")
    throw Error(ErrorKind::Unsupported, c.origin() + ": high_res_vision_config: key 'model_type'",
                fmt::format("DeepSeek-VL-Hybrid's high-resolution tower '{}' is not supported (sam_vision_model is)",
                            type));
  const std::int64_t hidden = high_res.dim({"hidden_size"}, 768);
  const std::int64_t channels = high_res.dim({"output_channels"}, 256);
  const std::int64_t global_layer = first_global_layer(high_res);
  // The SigLIP grid the high-resolution features are resized to (the reference's output_size).
  const std::int64_t side = p.vision.dim({"image_size"}, 224) / p.vision.dim({"patch_size"}, 16);

  return deepseek_vl::build_model(in, b, p, [&](GraphBuilder& g, std::int64_t text_hidden) {
    const clip::Tower tower = deepseek_vl::low_res_tower(in, g, p);
    Value last, global;
    {
      graph::Nested nest(g, {.module = "high_res_vision_model", .label = "HighRes_", .first_block = g.next_block()});
      last = sam::vision_encoder(in, g, high_res, Scope("vision_encoder"));
      // The SAM layers run on [H, W, C]: layer global_layer's output is its hidden_states[global_layer + 1].
      global = find_node(g, "HighRes_" + BlockNames{global_layer}.add(2));
    }
    if (global.node < 0)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": high_res_vision_config: key 'global_attn_indexes'",
                  fmt::format("layer {} is not one of the high-resolution tower's layers", global_layer));
    const Scope neck("high_res_vision_neck");
    // The layers' [H × W, C] tokens on the neck's H × W grid, channels first (a permute: a view).
    Value map{global.node, {hidden, last.shape[1], last.shape[2]}};
    if (global.shape.front() != last.shape[1] * last.shape[2])
      g.fail(global, fmt::format("layer {} writes {} tokens, not the {}x{} grid of the neck", global_layer,
                                 global.shape.front(), last.shape[1], last.shape[2]));
    map = conv2d(g, map, "HighRes_Global_Neck_Conv1",
                 {.module = neck / "conv1", .in = hidden, .out = channels, .kernel = 1, .bias = false});
    map = convnext::channels_first_norm(g, map, "HighRes_Global_Neck_LayerNorm1", neck / "layer_norm1");
    map = conv2d(g, map, "HighRes_Global_Neck_Conv2",
                 {.module = neck / "conv2", .in = channels, .out = channels, .kernel = 3, .padding = 1,
                  .bias = false});
    map = convnext::channels_first_norm(g, map, "HighRes_Global_Neck_LayerNorm2", neck / "layer_norm2");

    const Value last_proj = high_res_projection(g, last, "HighRes_Proj", side, channels, true);
    const Value global_proj = high_res_projection(g, map, "HighRes_Global_Proj", side, channels, false);
    // last + alpha × global
    auto scaled = g.node(graph::NodeType::LayerScale, "HighRes_Alpha", global_proj.shape, {global_proj});
    g.parameter(scaled, "high_res_vision_alpha", {1}, graph::TensorRole::Other);
    auto high = add(g, scaled, last_proj, "HighRes_Sum");
    const std::int64_t tokens = high.shape[1] * high.shape[2];
    high = Value{high.node, {tokens, 4 * channels}};  // permute(0, 2, 3, 1) and flatten: a view

    const Scope aligner("aligner");
    auto high_half = dense(g, high, "Aligner_High_Res_Vision_Proj", aligner / "high_res_vision_proj", 4 * channels,
                           text_hidden / 2, true);
    auto low_half = dense(g, tower.sequence, "Aligner_Vision_Proj", aligner / "vision_proj", tower.hidden,
                          text_hidden / 2, true);
    // torch.concat of the halves, then GELU: a parameter-free Linear node that only applies the activation.
    auto joined = g.node(graph::NodeType::Linear, "Aligner_Concat_GELU", {tokens, 2 * (text_hidden / 2)},
                         {high_half, low_half});
    g.at(joined).activation = "gelu";
    if (low_half.shape.front() != tokens)
      g.fail(joined, fmt::format("the SigLIP tower writes {} patches but the high-resolution tower {}",
                                 low_half.shape.front(), tokens));
    return dense(g, joined, "Aligner_Proj", aligner / "proj", text_hidden, text_hidden, true);
  });
}

}  // namespace
}  // namespace deepseek_vl_hybrid_impl

const Family& deepseek_vl_hybrid_family() {
  static const Family family{"deepseek_vl_hybrid", "models/deepseek_vl_hybrid/modeling_deepseek_vl_hybrid.py",
                             classes("DeepseekVLHybrid", {heads::VisionLanguageGeneration}), deepseek_vl_hybrid_impl::build};
  return family;
}

}  // namespace neurarch::families
