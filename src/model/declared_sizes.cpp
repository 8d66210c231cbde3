#include "model/declared_sizes.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "families/family.hpp"
#include "graph/budget.hpp"

namespace neurarch::model {
namespace {
using nlohmann::json;

bool ends_with(std::string_view s, std::string_view tail) { return s.size() >= tail.size() && s.ends_with(tail); }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Keys whose integer is a number of stacked layers, blocks or stages (num_hidden_layers, n_layer,
// encoder_layers, depths, num_encoder_blocks, num_hidden_groups).
bool is_layer_count(std::string_view k) {
  return ends_with(k, "layers") || ends_with(k, "_layer") || k == "n_layer" || ends_with(k, "depth") ||
         ends_with(k, "depths") || ends_with(k, "blocks") || ends_with(k, "_groups") || ends_with(k, "repeats");
}
// Keys whose integer multiplies what one layer holds (num_experts, n_routed_experts, num_local_experts,
// MobileBERT's num_feedforward_networks, ALBERT's inner_group_num).
bool is_per_layer_count(std::string_view k) {
  if (contains(k, "expert"))  // counts, not sizes: shared_expert_intermediate_size is a width
    return k.starts_with("num_") || k.starts_with("n_") || ends_with(k, "experts");
  return contains(k, "feedforward_networks") || k == "inner_group_num";
}
bool is_head_count(std::string_view k) {
  return (k.starts_with("num_") || k.starts_with("n_") || ends_with(k, "heads")) && contains(k, "head") &&
         !contains(k, "head_dim") && !contains(k, "head_size");
}
bool is_position_count(std::string_view k) { return contains(k, "position") || k == "n_ctx" || k == "seq_length"; }
bool is_image_side(std::string_view k) { return ends_with(k, "image_size") || k == "img_size"; }
// Widths: every *_size, *_dim, *_dims, n_embd, n_inner, d_model, d_ff, dim and hidden_sizes.
bool is_width(std::string_view k) {
  if (is_image_side(k) || is_position_count(k) || contains(k, "patch") || contains(k, "kernel") || contains(k, "stride") ||
      contains(k, "window") || contains(k, "batch") || contains(k, "bucket"))
    return false;
  return ends_with(k, "size") || ends_with(k, "sizes") || ends_with(k, "dim") || ends_with(k, "dims") || k == "n_embd" ||
         k == "n_embed" || k == "n_inner" || k == "d_model" || k == "d_ff" || k == "d_kv";
}

// Lists of token ids or labels (suppress_tokens, bad_words_ids) are data, not stages.
bool is_token_list(std::string_view k) { return contains(k, "token") || contains(k, "ids") || contains(k, "label"); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A JSON number as a non-negative magnitude; nullopt for non-numbers. Floats count too (768.0 is read
// as 768), and a negative number bounds nothing.
std::optional<double> magnitude(const json& v) {
  if (v.is_number_unsigned()) return static_cast<double>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::max(0.0, static_cast<double>(v.get<std::int64_t>()));
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return d > 0 && d < 1e300 ? d : 0.0;
  }
  return std::nullopt;
}

class Walker {
 public:
  explicit Walker(const Config& config) : origin_(config.origin()) {}

  void object(const json& o, const std::string& path, int depth) {
    if (depth > limits::kMaxJsonDepth)
      throw Error(ErrorKind::InvalidInput, origin_, fmt::format("nested deeper than {} levels", limits::kMaxJsonDepth));
    for (const auto& [key, value] : o.items()) {
      const std::string k = lower(key);
      const std::string where = path.empty() ? key : path + "." + key;
      if (value.is_object()) {
        object(value, where, depth + 1);
      } else if (value.is_array()) {
        array(k, value, where, depth + 1);
      } else if (auto m = magnitude(value)) {
        number(k, *m, where);
      }
    }
  }

  DeclaredSizes sizes;
  double max_positions = 0, image_side = 0, frames = 0, patch = 0;

 private:
  void array(const std::string& k, const json& a, const std::string& where, int depth) {
    if (depth > limits::kMaxJsonDepth)
      throw Error(ErrorKind::InvalidInput, origin_, fmt::format("nested deeper than {} levels", limits::kMaxJsonDepth));
    // A list can be a list of stages or layers (conv_dim, hidden_sizes, block configs): each entry may
    // become a layer, so its length counts. A list of layer indices (mlp_only_layers) is strictly
    // increasing and counts as its largest index, not its sum.
    bool numbers = !a.empty(), increasing = true;
    double sum = 0, largest = 0, previous = -1;
    for (const auto& e : a) {
      if (e.is_object()) object(e, where, depth + 1);
      else if (e.is_array()) array(k, e, where, depth + 1);
      auto m = magnitude(e);
      if (!m) {
        numbers = false;
        continue;
      }
      sum += *m;
      largest = std::max(largest, *m);
      increasing = increasing && *m > previous;
      previous = *m;
      number(k, *m, where, /*in_list=*/true);
    }
    if (is_layer_count(k) && numbers) add_layers(increasing ? largest + 1 : sum, where);
    else if (!a.empty() && (a.front().is_object() || a.front().is_array() || (numbers && !is_token_list(k))))
      add_layers(static_cast<double>(a.size()), where);
  }

  void number(const std::string& k, double v, const std::string& where, bool in_list = false) {
    if (is_layer_count(k)) {
      if (v > static_cast<double>(limits::kMaxLayers))
        fail(where, fmt::format("{:.0f} layers is over the limit of {}", v, limits::kMaxLayers));
      if (!in_list) add_layers(v, where);
    } else if (is_per_layer_count(k)) {
      if (v > static_cast<double>(limits::kMaxExperts))
        fail(where, fmt::format("{:.0f} is over the limit of {} experts (or parallel blocks) per layer", v, limits::kMaxExperts));
      sizes.per_layer = std::max(sizes.per_layer, v);
    } else if (is_head_count(k)) {
      sizes.heads = std::max(sizes.heads, v);
    } else if (is_position_count(k)) {
      max_positions = std::max(max_positions, v);
    } else if (is_image_side(k)) {
      if (v > static_cast<double>(limits::kMaxImageSide))
        fail(where, fmt::format("{:.0f} pixels is over the limit of {}", v, limits::kMaxImageSide));
      image_side = std::max(image_side, v);
    } else if (contains(k, "patch_size")) {
      if (v >= 1) patch = patch == 0 ? v : std::min(patch, v);
    } else if (k == "num_frames" || k == "num_mel_bins" || k == "max_source_positions") {
      frames = std::max(frames, v);
    } else if (is_width(k)) {
      sizes.width = std::max(sizes.width, v);
    }
  }

  void add_layers(double n, const std::string& where) {
    sizes.layers += n;
    if (sizes.layers > static_cast<double>(limits::kMaxTotalLayers))
      fail(where, fmt::format("the config declares more than {} layers in all", limits::kMaxTotalLayers));
  }

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", origin_, where), message);
  }

  std::string origin_;
};

void check_option(const char* flag, const std::optional<std::int64_t>& v, std::int64_t limit, const char* what) {
  if (v && *v > limit) throw Error(ErrorKind::InvalidInput, flag, fmt::format("{} {} is over the limit of {}", *v, what, limit));
}

}  // namespace

DeclaredSizes check_declared_sizes(const Config& config, const BuildOptions& options, std::int64_t batch) {
  check_option("--seq", options.seq, limits::kMaxSequence, "tokens");
  check_option("--target-seq", options.target_seq, limits::kMaxSequence, "tokens");
  check_option("--image-size", options.image_size, limits::kMaxImageSide, "pixels");
  check_option("--batch", std::optional<std::int64_t>(batch), limits::kMaxBatch, "samples");

  Walker w(config);
  w.object(config.json(), "", 0);
  DeclaredSizes s = w.sizes;
  s.layers = std::max(1.0, s.layers);
  s.units = s.layers * (16 + 3 * s.per_layer);
  // The estimate assumes every expert is tensors of its own; families that fuse them (Doge keeps 16,384
  // experts in two tables) build far less. So the estimate may pass the budget in force (a server narrows
  // it per request) by kEstimateSlack: what it misjudges, the builder stops at the budget itself.
  const auto& budget = graph::current_budget();
  const double unit_limit = static_cast<double>(std::min(budget.max_nodes, budget.max_tensors)) * limits::kEstimateSlack;
  if (s.units > unit_limit)
    throw Error(ErrorKind::InvalidInput, config.origin(),
                fmt::format("{:.0f} layers with {:.0f} experts each would make about {:.3g} nodes and tensors, over the "
                            "limit of {:.0f}",
                            s.layers, s.per_layer, s.units, unit_limit));

  // Tokens per sample: the sequence (the requested one, else the positions as families cap them), the
  // image's patches, the audio frames. Convolutional models keep a map per pixel, so pixels count as
  // positions for the width term; attention scores grow with the square of the tokens.
  const double positions = options.seq ? static_cast<double>(*options.seq)
                                       : std::min(w.max_positions, static_cast<double>(families::kDefaultSequenceCap));
  const double side = options.image_size ? static_cast<double>(*options.image_size) : w.image_side;
  const double patch = std::max(1.0, w.patch);
  const double patches = (side / patch) * (side / patch);
  s.tokens = std::max({1.0, positions, options.target_seq ? static_cast<double>(*options.target_seq) : 0.0, patches,
                       w.frames});
  s.width = std::max(1.0, s.width);
  s.activations = static_cast<double>(batch) * s.layers * (std::max(s.tokens, side * side) * s.width + s.heads * s.tokens * s.tokens);
  if (s.activations > static_cast<double>(limits::kMaxActivationScalars))
    throw Error(ErrorKind::InvalidInput, config.origin(),
                fmt::format("a training step would hold about {:.3g} activation scalars (batch {} x {:.0f} tokens x "
                            "width {:.0f} x {:.0f} layers), over the limit of 2^54; lower --batch or --seq",
                            s.activations, batch, s.tokens, s.width, s.layers));
  return s;
}

}  // namespace neurarch::model
