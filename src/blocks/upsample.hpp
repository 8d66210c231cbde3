#pragma once
// Upsampling over [C, H, W] feature maps, which dense-prediction heads (DPT, Depth Anything) use to climb back
// to the image's resolution.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// nn.ConvTranspose2d with kernel == stride and no padding (weight [in, out, k, k], bias [out]): every input
/// pixel becomes a k x k block of output pixels, one matmul per input pixel. The node is that matmul's
/// [out k k, H, W] product (so the work follows the input map); the Value returned is its [out, H k, W k]
/// rearrangement, which is what the module returns.
Value conv_transpose2d(GraphBuilder& b, const Value& x, const std::string& name, const ConvSpec& spec);

/// nn.ConvTranspose1d over [frames, in] (weight [in, out, kernel], bias [out]): each input frame becomes `kernel`
/// output frames, one matmul per input frame. The node is that [frames, out kernel] product (so the work follows
/// the input); the Value returned is the overlapped sum, (frames - 1) stride - 2 padding + kernel frames of `out`.
/// `module` names the weights (the node's channels are out * kernel: spec.out_channels is `out`).
Value conv_transpose1d(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                       std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                       bool bias = true);

/// F.interpolate / nn.Upsample (bilinear or nearest) of a [C, H, W] map to [C, height, width]. It has no
/// parameters and its backward needs only the sizes; there is no node type for it, so it is a Pool node with
/// a 1x1 window (average pooling's rule: nothing saved, no matmul work).
Value resize(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t height, std::int64_t width);

}  // namespace neurarch::blocks
