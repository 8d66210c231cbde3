// SuperPoint (models/superpoint/modeling_superpoint.py, transformers 4.47.1 and 5.24:
// SuperPointForKeypointDetection): the first channel of the pixels (the image processor's grayscale) through conv
// blocks of two 3x3 convs + ReLU (conv_a, conv_b) to encoder_hidden_sizes, max-pooled 2x2 after every block but the
// last (an H/8 x W/8 map); the keypoint decoder (3x3 conv to decoder_hidden_size + ReLU, 1x1 conv to
// keypoint_decoder_dim: 64 cells of an 8x8 patch plus "no keypoint") and the descriptor decoder (3x3 conv + ReLU,
// 1x1 conv to descriptor_decoder_dim, L2-normalised) read that map. Keypoint selection (NMS, thresholds, sampling the
// descriptors at the keypoints) has no tensors. The reference refuses labels (no training loss).
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace superpoint_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const auto widths = size_list(c, "encoder_hidden_sizes", {64, 64, 128, 128});
  const std::int64_t decoder = c.dim({"decoder_hidden_size"}, 256);
  const std::int64_t keypoint_dim = c.dim({"keypoint_decoder_dim"}, 65);
  const std::int64_t descriptor_dim = c.dim({"descriptor_decoder_dim"}, 256);
  // SuperPointImageProcessor resizes to 480 x 640; the graph runs a 480-pixel square.
  const std::int64_t image = in.image_size(480);

  auto pixels = b.input({3, image, image}, "pixels");
  Value x{pixels.node, {1, image, image}};  // extract_one_channel_pixel_values: the first channel, a view
  const Scope blocks = Scope("encoder") / "conv_blocks";
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    const Scope block = blocks / index;
    x = conv2d(b, x, fmt::format("Conv_{}_A", i),
               {.module = block / "conv_a", .in = x.shape[0], .out = widths[i], .kernel = 3, .padding = 1});
    b.at(x).activation = "relu";
    x = conv2d(b, x, fmt::format("Conv_{}_B", i),
               {.module = block / "conv_b", .in = widths[i], .out = widths[i], .kernel = 3, .padding = 1});
    b.at(x).activation = "relu";
    if (i + 1 < widths.size()) x = pool(b, x, fmt::format("Pool_{}", i), true, 2, 2);
  }

  const Scope kp("keypoint_decoder");
  auto scores = conv2d(b, x, "Score_Conv_A",
                       {.module = kp / "conv_score_a", .in = widths.back(), .out = decoder, .kernel = 3, .padding = 1});
  b.at(scores).activation = "relu";
  scores = conv2d(b, scores, "Score_Conv_B", {.module = kp / "conv_score_b", .in = decoder, .out = keypoint_dim});
  b.at(scores).activation = "softmax";

  const Scope dd("descriptor_decoder");
  auto descriptors = conv2d(b, x, "Descriptor_Conv_A",
                            {.module = dd / "conv_descriptor_a", .in = widths.back(), .out = decoder, .kernel = 3,
                             .padding = 1});
  b.at(descriptors).activation = "relu";
  descriptors = conv2d(b, descriptors, "Descriptor_Conv_B",
                       {.module = dd / "conv_descriptor_b", .in = decoder, .out = descriptor_dim});
  return descriptors;  // the keypoint scores are the model's other output
}

}  // namespace
}  // namespace superpoint_impl

const Family& superpoint_family() {
  static const Family family{"superpoint", "models/superpoint/modeling_superpoint.py",
                             {{"SuperPointForKeypointDetection", Head::PreTraining}}, superpoint_impl::build};
  return family;
}

}  // namespace neurarch::families
