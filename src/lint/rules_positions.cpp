// Where a token or a pixel sits: sliding windows that never slide, RoPE scaling blocks nothing
// reads or transformers refuses, images the patch grid does not tile.
#include <fmt/format.h>

#include "lint/facts.hpp"
#include "lint/rules.hpp"

namespace neurarch::lint::checks {

using graph::Node;

namespace {

const Node* widest_window(const Context& c) {
  const Node* best = nullptr;
  for (const auto& n : c.graph().nodes)
    if (n.attention && n.attention->window > 0 && (!best || n.attention->window > best->attention->window)) best = &n;
  return best;
}

std::string rope_type(const nlohmann::json& scaling) {
  for (auto key : {"rope_type", "type"})
    if (auto it = scaling.find(key); it != scaling.end() && it->is_string()) return it->get<std::string>();
  return {};
}

struct Grid {
  const Node* node = nullptr;
  std::int64_t h = 0, w = 0, ph = 0, pw = 0;
  bool tiles() const { return h % ph == 0 && w % pw == 0; }
};

// The image that runs (graph input [C, H, W]) and the kernel of the patch Conv2d ([dim, C, ph, pw]).
std::optional<Grid> patch_grid(const Context& c) {
  const auto& g = c.graph();
  const Node* pe = c.patch_embed();
  if (!pe || g.input_kind != "pixels" || g.input_shape.size() != 3) return std::nullopt;
  for (int t : pe->tensors) {
    const auto& spec = g.tensors.at(static_cast<std::size_t>(t));
    if (spec.shape.size() == 4 && spec.shape[2] > 0 && spec.shape[3] > 0)
      return Grid{pe, g.input_shape[1], g.input_shape[2], spec.shape[2], spec.shape[3]};
  }
  return std::nullopt;
}

// Classes whose loss compares a reconstruction with the input pixels, patch for patch.
bool reconstructs_pixels(std::string_view cls) {
  return cls.ends_with("ForMaskedImageModeling") || cls == "ViTMAEForPreTraining";
}

std::string grid_fix(const Grid& g) {
  if (g.ph == g.pw && g.h == g.w)
    return fmt::format("use image_size {} or {} (multiples of patch_size {})", round_down(g.h, g.ph),
                       round_up(g.h, g.ph), g.ph);
  return fmt::format("use an image of {}x{} or {}x{} (multiples of the {}x{} patch)", round_down(g.h, g.ph),
                     round_down(g.w, g.pw), round_up(g.h, g.ph), round_up(g.w, g.pw), g.ph, g.pw);
}

}  // namespace

Hits sliding_window_exceeds_context(const Context& c) {
  const Node* n = widest_window(c);
  auto positions = c.max_positions();
  if (!n || !positions || n->attention->window <= *positions) return {};
  return {{n->name,
           fmt::format("sliding_window {} is longer than {} {}: no sequence the model was built for is long "
                       "enough for the window to slide, so every layer attends over the full context",
                       n->attention->window, c.key_for("max_position_embeddings"), *positions),
           fmt::format("set sliding_window to the window the model was trained with (below {}; Mistral 7B v0.1 "
                       "uses 4096), or to null for full attention",
                       *positions)}};
}

Hits sliding_window_unused(const Context& c) {
  if (widest_window(c)) return {};
  const auto* use = c.value("use_sliding_window");
  const bool use_on = use && use->is_boolean() && use->get<bool>();
  const bool use_off = use && use->is_boolean() && !use->get<bool>();
  const auto window = c.integer("sliding_window");
  const std::string layers = fmt::format("{} {}", c.key_for("num_hidden_layers"), c.layers());
  if (use_on && c.read("use_sliding_window")) {
    if (!window)
      return {{"", "use_sliding_window is true but sliding_window is null, so no layer attends within a window",
               "set sliding_window to the trained window (e.g. 4096), or use_sliding_window to false"}};
    const auto first = c.integer("max_window_layers");
    return {{"",
             fmt::format("use_sliding_window is true, but no layer slides: layers from max_window_layers {} on use "
                         "the window and the model has {}",
                         first ? fmt::format("{}", *first) : std::string("(default)"), layers),
             fmt::format("set max_window_layers below {} (the layers from it on slide), or use_sliding_window to "
                         "false",
                         c.layers())}};
  }
  // A window the family never reads: the user believes attention is local, the model attends fully.
  const bool declared = use_on || (window && *window > 0 && !use_off);
  if (!declared || c.read("sliding_window") || c.read("use_sliding_window")) return {};
  return {{"",
           fmt::format("{} is set, but {} does not implement sliding-window attention: every layer attends over "
                       "the full context",
                       use_on ? std::string("use_sliding_window") : fmt::format("sliding_window {}", *window),
                       c.model_type()),
           "remove sliding_window / use_sliding_window, or use a model_type that implements them (mistral, qwen2)"}};
}

Hits rope_scaling_unread(const Context& c) {
  const auto* s = c.value("rope_scaling");
  if (!s || c.rotary()) return {};
  const Node* pos = c.first({graph::NodeType::LearnedPosEmbed});
  auto positions = c.max_positions();
  return {{pos ? pos->name : std::string(),
           fmt::format("rope_scaling {} is set, but {} has no rotary positions{}: nothing reads it", s->dump(),
                       c.model_type(),
                       positions ? fmt::format(" (a learned table of {} {})", c.key_for("max_position_embeddings"), *positions)
                                 : std::string()),
           "remove rope_scaling; a learned position table only grows by adding rows and training them"}};
}

Hits rope_scaling_malformed(const Context& c) {
  const auto* s = c.value("rope_scaling");
  if (!s || !c.rotary()) return {};
  const std::string example = R"({"rope_type": "linear", "factor": 2.0})";
  if (!s->is_object())
    return {{"", fmt::format("rope_scaling {} is not an object: transformers refuses the config", s->dump()),
             fmt::format("write rope_scaling as an object, e.g. {}, or null", example)}};
  const std::string type = rope_type(*s);
  if (type.empty())
    return {{"", fmt::format("rope_scaling {} names no rope_type (or type): transformers refuses the config",
                             s->dump()),
             fmt::format("add \"rope_type\", e.g. {}", example)}};
  const auto* required = facts::rope_required_keys(type);
  if (!required)
    return {{"",
             fmt::format("rope_scaling type '{}' is not one transformers knows (default, linear, dynamic, yarn, "
                         "longrope, llama3): the config is refused",
                         type),
             fmt::format("use rope_type '{}' or another known type",
                         nearest(type, {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}))}};
  std::vector<std::string_view> missing;
  for (auto key : *required)
    if (!s->contains(key) || (*s)[key].is_null()) missing.push_back(key);
  if (missing.empty()) return {};
  return {{"",
           fmt::format("rope_scaling of type '{}' lacks {}: transformers refuses the config (missing required keys)",
                       type, fmt::join(missing, ", ")),
           fmt::format("add {} to rope_scaling", fmt::join(missing, ", "))}};
}

Hits patch_grid_required(const Context& c) {
  auto g = patch_grid(c);
  if (!g || g->tiles() || !reconstructs_pixels(c.class_name())) return {};
  return {{g->node->name,
           fmt::format("{} compares its reconstruction with the input patch for patch, but the {}x{} image is not "
                       "a multiple of the {}x{} patch: its loss refuses the input",
                       c.class_name(), g->h, g->w, g->ph, g->pw),
           grid_fix(*g)}};
}

Hits patch_grid_drops_pixels(const Context& c) {
  auto g = patch_grid(c);
  if (!g || g->tiles() || reconstructs_pixels(c.class_name())) return {};
  return {{g->node->name,
           fmt::format("image {}x{} is not a multiple of patch_size {}x{}: the patch Conv2d covers {}x{} and "
                       "ignores the last {} rows and {} columns of every image",
                       g->h, g->w, g->ph, g->pw, g->h / g->ph * g->ph, g->w / g->pw * g->pw, g->h % g->ph,
                       g->w % g->pw),
           grid_fix(*g)}};
}

Hits mim_stride_mismatch(const Context& c) {
  auto g = patch_grid(c);
  auto stride = c.read_number({"encoder_stride"});
  if (!g || !stride || !c.class_name().ends_with("ForMaskedImageModeling")) return {};
  const auto s = static_cast<std::int64_t>(*stride);
  if (s == g->ph) return {};
  return {{g->node->name,
           fmt::format("encoder_stride {} differs from patch_size {}: {}.forward raises when bool_masked_pos is "
                       "given (the reconstruction would be {} px wide, the input is {})",
                       s, g->ph, c.class_name(), g->w / g->pw * s, g->w),
           fmt::format("set encoder_stride to {}", g->ph)}};
}

}  // namespace neurarch::lint::checks
