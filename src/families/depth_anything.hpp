#pragma once
// Depth Anything's whole depth estimator (depth_anything.cpp), exported so that Prompt Depth Anything starts from
// it and states only its prompt-depth branch.
#include "families/dpt_common.hpp"
#include "families/family.hpp"

namespace neurarch::families::depth_anything {

using FusionExtra = decltype(dpt::NeckSpec::fusion_extra);

/// DepthAnythingForDepthEstimation: DINOv2 backbone, DPT neck, depth head -> [height, width]. `fusion_extra`
/// runs inside every fusion layer (dpt::NeckSpec::fusion_extra).
graph::Value depth_estimator(const BuildInput& in, graph::GraphBuilder& b, const FusionExtra& fusion_extra = {});

}  // namespace neurarch::families::depth_anything
