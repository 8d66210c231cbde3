#pragma once
// What Swin and Swin V2 share: the patch embedding (the image padded to a multiple of the patch, a
// patch_size-stride conv, LayerNorm, optional absolute positions) and the sizing of window attention (the
// window shrinks to the grid when the grid is smaller; the grid is padded to whole windows).
#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::swin {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

std::int64_t ceil_div(std::int64_t a, std::int64_t b);

struct EmbedSpec {
  std::int64_t channels = 3;
  std::int64_t patch = 4;
  std::int64_t dim = 96;
  std::int64_t configured_image = 224;  ///< sizes the absolute position table
  std::int64_t image = 224;             ///< the image this graph runs
  bool absolute = false;                ///< use_absolute_embeddings
  double dropout = 0.0;
};

struct Embedded {
  Value x;  ///< [grid_h * grid_w, dim]
  std::int64_t grid_h = 0, grid_w = 0;
};

/// The embeddings module under `emb` (patch_embeddings.projection, norm, position_embeddings).
Embedded embed(GraphBuilder& b, const Value& pixels, const Scope& emb, const EmbedSpec& spec);

/// SwinConfig's encoder keys, which Swinv2Config keeps with the same defaults.
struct Settings {
  std::int64_t embed;
  std::vector<std::int64_t> depths, heads;  ///< one entry a stage
  std::int64_t window;
  double mlp_ratio;
  bool qkv_bias;
  double hidden_dropout, attention_dropout;
  std::string activation;
};
Settings read_settings(const Config& c);

/// The pixels (num_channels; --image-size, else image_size) through the embeddings under `root`.embeddings
/// (patch_size, use_absolute_embeddings).
Embedded stem(const BuildInput& in, GraphBuilder& b, const Settings& s, const Scope& root);

/// The window side a layer attends within on a grid_h x grid_w grid (never larger than the grid).
std::int64_t window_side(std::int64_t window, std::int64_t grid_h, std::int64_t grid_w);

/// Marks the attention node `attn` as running inside w x w windows; notes padding once per stage (first).
void attend_in_windows(GraphBuilder& b, const Value& attn, std::int64_t w, std::int64_t grid_h, std::int64_t grid_w,
                       std::size_t stage, bool first);

/// What the stages leave: the last stage's tokens [grid_h * grid_w, dim].
struct Stages {
  Value x;
  std::int64_t dim = 0, grid_h = 0, grid_w = 0;
};

/// How a caller's Swin differs inside its stages.
struct StageOptions {
  /// MaskFormer's Swin keeps the configured window (and its shift) on grids smaller than the window, padding
  /// the grid to one whole window instead of shrinking the window to the grid.
  bool shrink_window = true;
  /// When set, receives every stage's last tokens before its patch merging, as [grid_h x grid_w, width] with the
  /// grid in their shape's place ([width, grid_h, grid_w]): the feature maps a Swin backbone hands out.
  std::vector<Value>* stage_maps = nullptr;
};

/// Swin's stages under `layers` (`layers.<s>.blocks.<j>`, `layers.<s>.downsample`) over the embedded grid,
/// blocks numbered from 0: window attention with a relative_position_bias_table and its saved index per layer,
/// a patch merging between stages.
Stages stages(GraphBuilder& b, const Value& x, std::int64_t grid_h, std::int64_t grid_w, const Settings& settings,
              const Scope& layers, const StageOptions& options = {});

/// What a model built on Swin's stages changes (DonutSwinModel: no final layernorm).
struct ModelSpec {
  bool final_norm = true;  ///< `layernorm` after the last stage
  bool shrink_window = true;               ///< StageOptions::shrink_window
  std::vector<Value>* stage_maps = nullptr;  ///< StageOptions::stage_maps
};

/// SwinModel (the last stage's tokens, after the final norm when the spec has one) or
/// SwinForImageClassification (the mean token through `classifier`).
Value model(const BuildInput& in, GraphBuilder& b, const ModelSpec& spec = {});

}  // namespace neurarch::families::swin
