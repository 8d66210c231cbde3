#pragma once
// The DETR family (models/detr/modeling_detr.py, transformers 4.47.1) and its relatives that keep its
// layout (Table Transformer): a convolutional backbone (timm's ResNet by name, or HF's ResNet through
// backbone_config) with frozen batch norm and a frozen stem, a 1x1 input_projection to d_model, 2-D sine
// (or learned row/column) positions, an encoder over the H/32 x W/32 feature tokens, and a decoder whose
// num_queries object queries attend to each other and to the encoder memory. Positions are added to
// queries and keys only, inside every attention. Attention is eager-only in the reference.
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::detr {

struct Layout {
  bool pre_norm = false;            ///< norm before each sublayer (Table Transformer's normalize_before)
  bool encoder_final_norm = false;  ///< encoder.layernorm after the last encoder layer
  /// Conditional DETR's decoder: separate content and position projections (sa_* / ca_*), queries and keys
  /// of the cross-attention concatenated with sine embeddings of reference points (ref_point_head), scaled
  /// per layer by query_scale.
  bool conditional = false;
  bool no_object_class = true;        ///< the class head has num_labels + 1 outputs (softmax with "no object")
  std::int64_t default_queries = 100;  ///< the config class's num_queries
};

/// Default input side: DetrImageProcessor resizes the shortest edge to 800 (longest at most 1333);
/// --image-size gives a square image.
inline constexpr std::int64_t kDefaultImageSize = 800;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

/// The feature maps the backbone hands on, in the order the reference lists them, and their channels.
struct Backbone {
  std::vector<graph::Value> maps;
  std::vector<std::int64_t> channels;
};

/// Where the backbone lives under the model, and which of its parameters the reference trains.
struct BackboneLayout {
  std::vector<std::string> path{"backbone", "conv_encoder", "model"};  ///< DetrConvEncoder's `model`
  bool timm_default = true;  ///< use_timm_backbone when the config does not say
  /// HF's ResNet: parameters whose names contain none of these are frozen. DETR looks for "stage.N", which the
  /// "encoder.stages.N" names never contain, so it freezes the whole backbone; DETA looks for "stages.N".
  std::vector<std::string> hf_trained{"stage.1", "stage.2", "stage.3"};
};

/// DETR's convolutional backbone under `model` (DetrConvEncoder's by default), on a square `image`: timm's ResNet
/// by name (use_timm_backbone; `timm_out_indices` when backbone_kwargs names none, and only stages 2-4 trained) or
/// HF's ResNetBackbone from backbone_config, with frozen batch norm. Deformable DETR and DETA share it.
Backbone backbone(const Config& c, graph::GraphBuilder& b, std::int64_t image, const graph::Scope& model,
                  const std::vector<std::int64_t>& timm_out_indices = {1, 2, 3, 4},
                  const BackboneLayout& layout = {});

/// DetrMLPPredictionHead under `module`.layers.N: `layers` Linear layers with ReLU between them, the last one
/// ending in `last_activation` (the box head's sigmoid).
graph::Value mlp_head(graph::GraphBuilder& b, const graph::Value& x, const std::string& name,
                      const graph::Scope& module, std::int64_t in, std::int64_t hidden, std::int64_t out,
                      std::int64_t layers, const std::string& last_activation);

/// DETR's decoder alone (DetrDecoder: post-norm layers, then `layernorm`) under `stack`, with the dimensions of the
/// DETR config `c`: the queries start at their positions `query_pos` [num_queries, d_model] and attend to `memory`
/// [tokens, d_model]. MaskFormer runs it over its image features.
graph::Value decoder(graph::GraphBuilder& b, const Config& c, const graph::Value& query_pos,
                     const graph::Value& memory, const graph::Scope& stack);

}  // namespace neurarch::families::detr
