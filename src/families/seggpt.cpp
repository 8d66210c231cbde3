// SegGPT (models/seggpt/modeling_seggpt.py, transformers 4.47.1 and 5.24): in-context segmentation with a ViT.
// The input image is stacked above the prompt image, and the prompt mask above itself (labels in training), each
// image_size tall; both stacks go through one patch_size conv as a batch of two. The prompt stack's lower half is
// replaced by mask_token; segment_token_input / _prompt, the position table (pretrain_image_size, interpolated to
// the grid) and type_token_instance (or _semantic) are added. Pre-norm layers (layernorm_before, a fused qkv with
// SAM-style decomposed rel_pos_h / rel_pos_w sized by the configured grid, proj; layernorm_after, lin1 / lin2) run
// on both sequences until merge_index, after which they are averaged into one; encoder.layernorm normalises the
// layers in intermediate_hidden_state_indices. SegGptForImageSegmentation concatenates those, decoder_embed maps
// each token to a patch_size^2 x decoder_hidden_size patch, and the head (3x3 conv, channels-first LayerNorm,
// activation, 1x1 conv) paints three channels. The attention is eager only. feature_ensemble (off by default)
// adds no tensors.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "families/convnext_common.hpp"
#include "families/family.hpp"
#include "families/sam_common.hpp"
#include "families/shared_parameters.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace seggpt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 1024);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t mlp_dim = c.dim({"mlp_dim"}, 4096);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const vit::Size2 image = vit::read_size2(c, "image_size", {896, 448, true});
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const vit::Size2 pretrain = vit::read_size2(c, "pretrain_image_size", {224, 224, false});
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const bool relative = c.flag({"use_relative_position_embeddings"}, true);
  const std::int64_t merge = c.integer({"merge_index"}, 2);
  const auto intermediate = sam::layer_indexes(c, "intermediate_hidden_state_indices", {5, 11, 17, 23});
  const std::int64_t decoder_hidden = c.dim({"decoder_hidden_size"}, 64);
  const bool segmentation = in.class_name.ends_with("ForImageSegmentation");
  const Scope root = segmentation ? Scope("model") : Scope();
  const std::int64_t grid_h = image.h / patch, grid_w = image.w / patch, tokens = grid_h * grid_w;
  const std::int64_t head_dim = hidden / heads;

  // Each half of a stack is image_size / 2 tall; the image processor resizes to the configured size.
  auto pixels = b.input({channels, image.h / 2, image.w}, "pixels");
  auto prompt_pixels = b.input({channels, image.h / 2, image.w}, "pixels", "prompt_pixel_values");
  auto prompt_masks = b.input({channels, image.h / 2, image.w}, "pixels", "prompt_masks");
  if (in.requested_image_size) b.fail(pixels, "SegGPT runs only its configured image_size");
  // torch.cat along the height, twice, then the two stacks as a batch of two (drawn one above the other here).
  auto stacked = b.node(NodeType::Add, "Input_Stacks", {channels, 2 * image.h, image.w},
                        {pixels, prompt_pixels, prompt_masks});
  const Scope emb = root / "embeddings";
  auto x = patch_embed(b, stacked, "Patch_Embed",
                       {.projection = emb / "patch_embeddings" / "projection", .channels = channels, .dim = hidden,
                        .patch = patch});
  x = b.node(NodeType::LearnedPosEmbed, "Embeddings", x.shape, {x}, emb);
  for (const char* token :
       {"mask_token", "segment_token_input", "segment_token_prompt", "type_token_semantic", "type_token_instance"})
    b.parameter(x, emb(token), {1, 1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("position_embeddings"), {1, (pretrain.h / patch) * (pretrain.w / patch) + 1, hidden}, graph::TensorRole::Embedding);

  SharedParameters shared(b);
  std::vector<Value> taps;
  const Scope encoder = root / "encoder";
  for (std::int64_t i = 0; i < layers; ++i) {
    const Scope l = encoder / "layers" / i;
    const Scope attn = l / "attention";
    PreNormLayer layer;
    layer.norm1 = {l / "layernorm_before"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                       .qkv_bias = qkv_bias};
    layer.norm2 = {l / "layernorm_after"};
    layer.ffn = {.hidden = hidden, .intermediate = mlp_dim, .activation = act, .module = l / "mlp",
                 .up = l / "mlp" / "lin1", .down = l / "mlp" / "lin2"};
    b.set_block(static_cast<int>(i));
    x = pre_norm_layer(b, x, i, layer);
    // The layer's attention: the last node with attention attributes. Each sequence of the batch attends alone.
    auto& nodes = b.graph().nodes;
    const auto found = std::find_if(nodes.rbegin(), nodes.rend(), [](const graph::Node& n) {
      return n.attention.has_value();
    });
    const Value attention{found->index, found->out};
    b.at(attention).attention->sdpa = false;
    b.at(attention).attention->query_len = tokens;
    b.at(attention).attention->kv_len = tokens;
    if (relative) {
      b.parameter(attention, attn("rel_pos_h"), {2 * grid_h - 1, head_dim}, graph::TensorRole::Other);
      b.parameter(attention, attn("rel_pos_w"), {2 * grid_w - 1, head_dim}, graph::TensorRole::Other);
    }
    if (i == merge) x = b.node(NodeType::Add, "Merge_Average", {tokens, hidden}, {x});
    if (std::find(intermediate.begin(), intermediate.end(), i) != intermediate.end())
      taps.push_back(shared.layer_norm(x, fmt::format("Encoder_LayerNorm_{}", i), encoder / "layernorm"));
  }
  b.set_block(-1);
  if (taps.empty()) shared.layer_norm(x, "Encoder_LayerNorm", encoder / "layernorm");  // it exists regardless
  if (!segmentation) return x;

  const auto count = static_cast<std::int64_t>(intermediate.size());
  auto joined = b.node(NodeType::Add, "Intermediate_Concat", {tokens, hidden * count}, {taps.front()});
  for (std::size_t i = 1; i < taps.size(); ++i) b.at(joined).inputs.push_back(taps[i].node);
  for (const auto& t : taps)
    if (t.shape.front() != tokens)
      b.fail(joined, "an intermediate layer before merge_index still holds both sequences; the decoder cannot "
                     "concatenate it");
  const Scope decoder("decoder");
  auto h = dense(b, joined, "Decoder_Embed", decoder / "decoder_embed", hidden * count,
                 patch * patch * decoder_hidden, true);
  Value map{h.node, {decoder_hidden, grid_h * patch, grid_w * patch}};  // the patches unfolded, a view
  const Scope pred = decoder / "decoder_pred";
  map = conv2d(b, map, "Decoder_Conv", {.module = pred / "conv", .in = decoder_hidden, .out = decoder_hidden,
                                        .kernel = 3, .padding = 1});
  map = convnext::channels_first_norm(b, map, "Decoder_LayerNorm", pred / "layernorm");
  b.at(map).activation = act;
  return conv2d(b, map, "Decoder_Head", {.module = pred / "head", .in = decoder_hidden, .out = 3});
}

}  // namespace
}  // namespace seggpt_impl

const Family& seggpt_family() {
  static const Family family{"seggpt", "models/seggpt/modeling_seggpt.py",
                             {{"SegGptModel", Head::Base}, {"SegGptForImageSegmentation", Head::PreTraining}}, seggpt_impl::build};
  return family;
}

}  // namespace neurarch::families
