#include "families/llava_common.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families::llava {

using namespace blocks;
using graph::NodeType;

const nlohmann::json& clip_vit_l14_336() {
  static const nlohmann::json tower = {
      {"model_type", "clip_vision_model"}, {"intermediate_size", 4096}, {"hidden_size", 1024},
      {"patch_size", 14},   {"image_size", 336},  {"num_hidden_layers", 24},
      {"num_attention_heads", 16}, {"vocab_size", 32000}, {"projection_dim", 768}};
  return tower;
}

Parts read_parts(const Config& c, const nlohmann::json& default_vision, std::string_view default_text_type) {
  Parts p{c.child("vision_config", default_vision), c.child("text_config")};
  const std::string vision_type = p.vision.text({"model_type"}, "clip_vision_model");
  const std::string text_type = p.text.text({"model_type"}, std::string(default_text_type));
  if (vision_type == "clip_vision_model") p.variant = clip::Variant::Clip;
  else if (vision_type == "siglip_vision_model") p.variant = clip::Variant::Siglip;
  else
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                fmt::format("the vision tower '{}' is not supported (clip_vision_model, siglip_vision_model are)",
                            vision_type));
  const auto lm = multimodal::find_language_model(c, text_type, Head::CausalLM, c.text({"model_type"}, "LLaVA"));
  p.text_family = lm.family;
  p.causal_lm = lm.cls;
  return p;
}

std::int64_t text_width(const BuildInput& in, const Parts& p) {
  return multimodal::token_width(in, p.text, {p.text_family, p.causal_lm});
}

std::vector<std::int64_t> feature_layers(const Config& c, std::string_view key, std::vector<std::int64_t> fallback) {
  const auto* v = c.raw({key});
  if (!v) return fallback;
  if (!v->is_array()) return {c.integer({key})};
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                  "expected an integer or a list of integers");
    out.push_back(e.get<std::int64_t>());
  }
  if (out.empty())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key), "the list of layers is empty");
  return out;
}

bool drops_first_token(const Config& c, std::string_view fallback) {
  const std::string strategy = c.text({"vision_feature_select_strategy"}, std::string(fallback));
  if (strategy != "default" && strategy != "full")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_select_strategy'",
                fmt::format("expected \"default\" or \"full\", found \"{}\"", strategy));
  return strategy == "default";
}

VisionFeatures vision_features(const BuildInput& in, GraphBuilder& b, const Config& c, const Parts& p,
                               const std::vector<std::int64_t>& layers, bool drop_first, std::int64_t crops,
                               const graph::Nest& tower_nest) {
  VisionFeatures f;
  graph::Nested nest(b, tower_nest);
  auto tower = clip::vision_tower(in, b, p.vision, p.variant, Scope("vision_model"), crops);
  const auto states = static_cast<std::int64_t>(tower.hidden_states.size());
  for (auto layer : layers) {
    const std::int64_t index = layer < 0 ? states + layer : layer;
    if (index < 0 || index >= states)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": vision feature layers",
                  fmt::format("layer {} is outside the tower's {} hidden states", layer, states));
    f.picked.push_back(tower.hidden_states[static_cast<std::size_t>(index)]);
  }
  f.width = tower.hidden * static_cast<std::int64_t>(f.picked.size());
  graph::Shape shape = f.picked.front().shape;
  if (drop_first) --shape[shape.size() - 2];
  shape.back() = f.width;
  f.features = Value{f.picked.front().node, shape};
  return f;
}

Value two_layer_projector(GraphBuilder& b, const Value& x, const VisionFeatures& f, const Scope& module,
                          std::int64_t text_hidden, bool bias, const std::string& activation) {
  auto h = dense(b, x, "Projector_Linear_1", module / "linear_1", x.shape.back(), text_hidden, bias, activation);
  for (std::size_t i = 1; i < f.picked.size(); ++i) b.at(h).inputs.push_back(f.picked[i].node);
  return dense(b, h, "Projector_Linear_2", module / "linear_2", text_hidden, text_hidden, bias);
}

namespace llava_common_impl {
namespace {

struct Pinpoint {
  std::int64_t h = 0, w = 0;
};

std::vector<Pinpoint> read_pinpoints(const Config& c, const nlohmann::json& fallback) {
  const auto* v = c.raw({"image_grid_pinpoints"});
  const nlohmann::json& list = v ? *v : fallback;
  const std::string where = c.origin() + ": key 'image_grid_pinpoints'";
  if (!list.is_array() || list.empty())
    throw Error(ErrorKind::InvalidInput, where, "expected a non-empty list of [height, width] pairs");
  std::vector<Pinpoint> out;
  for (const auto& e : list) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer() ||
        e[0].get<std::int64_t>() <= 0 || e[1].get<std::int64_t>() <= 0 || e[0].get<std::int64_t>() > 1'000'000 ||
        e[1].get<std::int64_t>() > 1'000'000)
      throw Error(ErrorKind::InvalidInput, where, "expected a list of [height, width] pairs of positive pixels");
    out.push_back({e[0].get<std::int64_t>(), e[1].get<std::int64_t>()});
  }
  return out;
}

// image_processing_utils.select_best_resolution: the pinpoint keeping the most of the photo's pixels
// once it is scaled to fit, then the one wasting the fewest.
Pinpoint best_resolution(std::int64_t h, std::int64_t w, const std::vector<Pinpoint>& pinpoints) {
  Pinpoint best;
  std::int64_t max_effective = 0;
  double min_wasted = HUGE_VAL;
  for (const auto& p : pinpoints) {
    const double scale = std::min(static_cast<double>(p.w) / static_cast<double>(w),
                                  static_cast<double>(p.h) / static_cast<double>(h));
    const auto down_w = static_cast<std::int64_t>(static_cast<double>(w) * scale);
    const auto down_h = static_cast<std::int64_t>(static_cast<double>(h) * scale);
    const std::int64_t effective = std::min(down_w * down_h, w * h);
    const double wasted = static_cast<double>(p.w * p.h - effective);
    if (effective > max_effective || (effective == max_effective && wasted < min_wasted)) {
      max_effective = effective;
      min_wasted = wasted;
      best = p;
    }
  }
  return best;
}

// Python's int(round(x, 7)).
std::int64_t round7(double x) { return static_cast<std::int64_t>(std::round(x * 1e7) / 1e7); }

}  // namespace
}  // namespace llava_common_impl
using namespace llava_common_impl;

Anyres anyres(const Config& c, const nlohmann::json& default_pinpoints, std::int64_t image_size,
              std::int64_t patch_size, std::optional<std::int64_t> photo_side, std::int64_t max_crops) {
  const auto pinpoints = read_pinpoints(c, default_pinpoints);
  Anyres a;
  if (photo_side) {
    a.photo_h = a.photo_w = *photo_side;
  } else {
    const auto largest = std::max_element(pinpoints.begin(), pinpoints.end(), [](const Pinpoint& x, const Pinpoint& y) {
      return x.h * x.w < y.h * y.w;
    });
    a.photo_h = largest->h;
    a.photo_w = largest->w;
  }
  const Pinpoint best = best_resolution(a.photo_h, a.photo_w, pinpoints);
  a.best_h = best.h;
  a.best_w = best.w;
  a.side = image_size / patch_size;
  // The processor cuts ceil(best / image_size) crops per side; the model re-tiles best // image_size.
  const std::int64_t grid_h = (best.h + image_size - 1) / image_size, grid_w = (best.w + image_size - 1) / image_size;
  a.crops = grid_h * grid_w + 1;
  if (best.h % image_size != 0 || best.w % image_size != 0)
    a.problem = fmt::format("pinpoint {}x{} is not a multiple of the {}-pixel crops, so its crops' features cannot "
                            "be re-tiled",
                            best.h, best.w, image_size);
  // unpad_image: the tiled feature map loses the rows or columns that padded the photo to the pinpoint.
  std::int64_t rows = grid_h * a.side, columns = grid_w * a.side;
  const double photo_aspect = static_cast<double>(a.photo_w) / static_cast<double>(a.photo_h);
  const double grid_aspect = static_cast<double>(columns) / static_cast<double>(rows);
  if (photo_aspect > grid_aspect) {
    const std::int64_t kept = round7(static_cast<double>(a.photo_h) * (static_cast<double>(columns) /
                                                                      static_cast<double>(a.photo_w)));
    rows -= 2 * ((rows - kept) / 2);
  } else {
    const std::int64_t kept = round7(static_cast<double>(a.photo_w) * (static_cast<double>(rows) /
                                                                      static_cast<double>(a.photo_h)));
    columns -= 2 * ((columns - kept) / 2);
  }
  if (max_crops > 0) {
    // OneVision interpolates a map of more than max_crops crops' worth of features (10 % slack) down to it.
    const double ratio = std::sqrt(static_cast<double>(rows * columns) /
                                   static_cast<double>(max_crops * a.side * a.side));
    if (ratio > 1.1) {
      rows = static_cast<std::int64_t>(std::floor(static_cast<double>(rows) / ratio));
      columns = static_cast<std::int64_t>(std::floor(static_cast<double>(columns) / ratio));
    }
  }
  a.rows = rows;
  a.columns = columns;
  a.tokens = a.side * a.side + rows * (columns + 1);
  return a;
}

std::int64_t prompt_length(const BuildInput& in, GraphBuilder& b, const Config& text, std::int64_t image_tokens) {
  if (in.requested_seq) return *in.requested_seq;
  const std::int64_t positions = text.integer({"max_position_embeddings", "n_positions"}, kDefaultSequenceCap);
  const std::int64_t usual = std::min(positions, kDefaultSequenceCap);
  if (usual >= image_tokens) return usual;
  b.note(fmt::format("the prompt defaults to the {} image tokens (more than the usual {}); set --seq to add text",
                     image_tokens, usual));
  return image_tokens;
}

Value language_model(const BuildInput& in, GraphBuilder& b, const Parts& p, Layout layout, std::int64_t seq) {
  const ClassDef& cls = layout == Layout::Legacy ? *p.causal_lm : p.text_family->classes.front();
  const BuildInput with_seq{in.config, in.class_name, in.head, seq, in.requested_image_size};
  return multimodal::build_language_model(with_seq, b, p.text, {p.text_family, &cls},
                                          {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
}

Value top_lm_head(GraphBuilder& b, const Value& x, const Config& text) {
  // 4.5x ties lm_head to the text model's embedding when the text config says so.
  return top_lm_head(b, x, text, text.flag({"tie_word_embeddings"}, false));
}

Value top_lm_head(GraphBuilder& b, const Value& x, const Config& text, bool tied) {
  const graph::Graph& g = b.graph();
  const graph::Node* embed = multimodal::prompt_embedding(g);
  if (!embed || embed->tensors.empty())
    throw Error(ErrorKind::Unsupported, text.origin(), "the language model has no token embedding for lm_head");
  const graph::TensorSpec table = g.tensors[static_cast<std::size_t>(embed->tensors.front())];
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = table.shape.back(), .vocab = table.shape.front()};
  if (tied) head.tied_weight = table.name;
  return lm_head(b, x, "LM_Head", head);
}

void scatter_into_prompt(GraphBuilder& b, const Value& image, std::int64_t image_tokens) {
  multimodal::scatter_image_features(b, Value{image.node, {image_tokens, image.shape.back()}});
}

}  // namespace neurarch::families::llava

namespace neurarch::families::llava {

namespace llava_common_impl {
namespace {

std::int64_t max_crops_of(const Config& c) {
  const std::string ratio = c.text({"vision_aspect_ratio"}, "anyres_max_9");
  constexpr std::string_view prefix = "anyres_max_";
  const std::string digits = ratio.starts_with(prefix) ? ratio.substr(prefix.size()) : "";
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char ch) {
        return ch >= '0' && ch <= '9';
      }) || std::stoll(digits) == 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_aspect_ratio'",
                fmt::format("expected \"anyres_max_<crops>\", found \"{}\"", ratio));
  return std::stoll(digits);
}

}  // namespace
}  // namespace llava_common_impl
using namespace llava_common_impl;

AnyresModel llava_next_defaults() {
  return {.default_vision = clip_vit_l14_336(),
          .default_text_type = "llama",
          .default_pinpoints = {{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}}};
}

Value build_anyres(const BuildInput& in, GraphBuilder& b, const AnyresModel& m) {
  const Config& c = in.config;
  const Parts p = read_parts(c, m.default_vision, m.default_text_type);
  const bool drop_first = drops_first_token(c, m.default_strategy);
  const auto layers = feature_layers(c, "vision_feature_layer", {m.default_feature_layer});
  // The tower always sees crops of its own image_size; --image-size is the photo's side.
  const std::int64_t crop_size = p.vision.dim({"image_size"}, 224);
  const std::int64_t patch = p.vision.dim({"patch_size"}, p.variant == clip::Variant::Clip ? 32 : 16);
  const Anyres a = anyres(c, m.default_pinpoints, crop_size, patch, in.requested_image_size,
                          m.read_max_crops ? llava_common_impl::max_crops_of(c) : 0);
  const BuildInput tower_in{in.config, in.class_name, in.head, in.requested_seq, std::nullopt};
  const bool with_head = m.layout == Layout::Legacy || in.head != Head::Base;
  const std::int64_t text_hidden = text_width(in, p);

  Value out;
  {
    std::optional<graph::Nested> model;
    if (m.layout == Layout::Model && with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    const Scope top;
    const auto f = vision_features(tower_in, b, c, p, layers, drop_first, a.crops);
    auto x = two_layer_projector(b, f.features, f, top / "multi_modal_projector", text_hidden,
                                 c.flag({"multimodal_projector_bias"}, true), c.text({"projector_hidden_act"}, "gelu"));
    // The crops' features are re-tiled into one map, unpadded, (OneVision) downscaled, and a learned
    // newline vector closes every row; the whole view's features go first. Only reshapes, a bilinear
    // interpolation and a concatenation: a learned embedding placed at fixed positions, which keeps nothing
    // for backward.
    auto packed = b.node(NodeType::LearnedPosEmbed, "Image_Newline", {a.tokens, text_hidden}, {x});
    b.parameter(packed, top("image_newline"), {text_hidden}, graph::TensorRole::Other);
    const std::int64_t per_crop = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 0;
    if (!a.problem.empty())
      b.fail(packed, a.problem);
    else if (per_crop != a.side * a.side)
      b.fail(packed, fmt::format("anyres re-tiles {}x{} features per crop, but the tower hands on {} (a class token "
                                 "kept by the \"full\" strategy, or dropped from a tower without one)",
                                 a.side, a.side, per_crop));
    b.note(fmt::format("anyres: a {}x{} photo is resized to the {}x{} pinpoint: {} crops of {} px through the vision "
                       "tower, {} image tokens in the prompt ({} of the whole view, {} rows of {} features plus a "
                       "newline each); --image-size sets the photo's side",
                       a.photo_h, a.photo_w, a.best_h, a.best_w, a.crops, crop_size, a.tokens, a.side * a.side,
                       a.rows, a.columns));
    const std::int64_t seq = prompt_length(in, b, p.text, a.tokens);
    out = language_model(in, b, p, m.layout, seq);
    scatter_into_prompt(b, packed, a.tokens);
  }
  if (m.layout == Layout::Model && with_head)
    out = top_lm_head(b, out, p.text);
  return out;
}

}  // namespace neurarch::families::llava
