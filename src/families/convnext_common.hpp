#pragma once
// The ConvNeXt layer that ConvNeXt, ConvNeXt V2 and DINOv3's ConvNeXt share: a 7x7 depthwise conv, then, over
// the channels-last view, LayerNorm -> pointwise Linear (4x) -> activation -> [GRN] -> pointwise Linear ->
// [per-channel scale], added to the input. The families differ only in module names, in V2's GRN and in
// whether the scale exists.
#include <cstdint>
#include <string>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::convnext {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// A [C, H, W] map seen channels-last ([H, W, C]), as the reference permutes it (a view: no node), and back.
Value channels_last(const Value& x);
Value channels_first(const Value& x);

/// LayerNorm over the channels of a [C, H, W] map (the reference's channels_first data format).
Value channels_first_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module);

struct LayerNames {
  Scope layer;  ///< the layer's module
  Scope dwconv, norm, up, down;
  Scope grn;          ///< ConvNeXt V2's GRN between the activation and `down`; empty: none
  std::string scale;  ///< the per-channel scale tensor; empty: none
};

/// One layer over the [width, H, W] map `x`, as repeated block `block`.
Value layer(GraphBuilder& b, const Value& x, std::int64_t block, std::int64_t width, const std::string& activation,
            const LayerNames& names);

struct Variant {
  std::string_view prefix;  ///< the base model's attribute in the heads' classes ("convnext", "convnextv2")
  bool grn = false;         ///< V2: GRN in every layer, no layer scale
};

/// The whole model: stem, stages (a downsampling LayerNorm + 2x2 conv where the width or stride changes), the
/// LayerNorm of the spatial mean, and for Head::ImageClassification the classifier.
Value model(const BuildInput& in, GraphBuilder& b, const Variant& variant);

}  // namespace neurarch::families::convnext
