// M-CTC-T (models/deprecated/mctct/modeling_mctct.py, transformers 4.47.1; removed before 5.x): a post-norm
// speech encoder over log-mel features.
// - encoder.layer_norm: MCTCTLayerNorm, one scalar weight and bias (singleton_weight / singleton_bias [1]) on the
//   raw features.
// - encoder.conv: the features padded by sum(kernel // 2) frames on each side, then num_conv_layers Conv1d
//   (conv_kernel / conv_stride, valid padding) each followed by a GLU over the channels; the last one gives
//   2 x hidden_size channels. Intermediate widths come from conv_channels, indexed as the reference indexes them.
// - encoder.layers: BERT-style post-norm layers whose q / k / v / output.dense / intermediate / output projections
//   have no bias; heads are attention_head_dim wide (not hidden / heads), and each self-attention adds scores
//   against a learned distance table distance_embedding [2 max_position_embeddings - 1, head_dim] (eager only).
// MCTCTForCTC wraps the model as `mctct` and adds a biased ctc_head. --seq sets the input frames (default:
// the frames whose subsampled length is max_position_embeddings, the longest the distance table covers).
#include <numeric>

#include <fmt/format.h>

#include "blocks/blocks.hpp"

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace mctct_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 1536);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 4);
  const std::int64_t head_dim = c.dim({"attention_head_dim"}, 384);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 6144);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 36);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 920);
  const std::string activation = c.text({"hidden_act"}, "relu");
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.3);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.3);
  const double conv_dropout = c.number({"conv_dropout"}, 0.3);
  const std::int64_t features = c.dim({"input_feat_per_channel"}, 80) * c.dim({"input_channels"}, 1);
  const std::int64_t conv_layers = c.dim({"num_conv_layers"}, 1);
  const auto kernels = size_list(c, "conv_kernel", {7});
  const auto strides = size_list(c, "conv_stride", {3});
  require_length(c, "conv_stride", strides, kernels.size());
  std::vector<std::int64_t> mid;
  if (conv_layers > 1) {
    if (!c.raw({"conv_channels"}))
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'conv_channels'",
                  "num_conv_layers > 1 needs conv_channels (MCTCTConv1dSubsampler raises ValueError)");
    mid = size_list(c, "conv_channels", {});
    require_length(c, "conv_channels", mid, kernels.size());
  }
  if (hidden % heads != 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'num_attention_heads'",
                fmt::format("hidden_size {} is not a multiple of {} heads", hidden, heads));

  const bool ctc = in.head == Head::CausalLM;
  const Scope root = ctc ? Scope("mctct") : Scope();
  const Scope encoder = root / "encoder";
  const std::int64_t subsampling =
      std::accumulate(strides.begin(), strides.end(), std::int64_t{1}, std::multiplies<>());
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : positions * subsampling;
  auto x = b.input({frames, features}, "audio_features", "input_features");
  x = b.node(graph::NodeType::LayerScale, "Singleton_LayerNorm", x.shape, {x}, encoder / "layer_norm");
  b.parameter(x, (encoder / "layer_norm")("singleton_weight"), {1}, graph::TensorRole::Norm);
  b.parameter(x, (encoder / "layer_norm")("singleton_bias"), {1}, graph::TensorRole::Bias);

  std::int64_t padding = 0;
  for (auto k : kernels) padding += k / 2;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const bool last = static_cast<std::int64_t>(i) == conv_layers - 1 || i + 1 == kernels.size();
    const std::int64_t in_channels = i == 0 ? features : mid[i];
    const std::int64_t out_channels = last ? 2 * hidden : mid[i];
    x = conv1d(b, x, fmt::format("Conv_Subsampler_{}", i),
               {.module = encoder / "conv" / "conv_layers" / static_cast<std::int64_t>(i), .in_channels = in_channels,
                .out_channels = out_channels, .kernel = kernels[i], .stride = strides[i],
                .padding = i == 0 ? padding : 0, .activation = "glu"});
    b.at(x).dropout = conv_dropout;
  }
  b.at(x).dropout = hidden_dropout;
  const std::int64_t length = x.shape.front();

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = encoder / "layers" / i;
    const Scope attn = l / "attention";
    const BlockNames n{i};
    auto a = attention(b, x, n.attention(),
                       {.hidden = hidden, .heads = heads, .head_dim = head_dim, .module = attn,
                        .q = attn / "self" / "query", .k = attn / "self" / "key", .v = attn / "self" / "value",
                        .o = attn / "output" / "dense", .qkv_bias = false, .o_bias = false,
                        .require_divisible = false, .dropout = attention_dropout, .output_dropout = hidden_dropout});
    b.at(a).attention->sdpa = false;
    b.parameter(a, (attn / "self")("distance_embedding.weight"), {2 * positions - 1, head_dim}, graph::TensorRole::Embedding);
    if (i == 0 && length > positions)
      b.fail(a, fmt::format("{} subsampled frames exceed max_position_embeddings {}: the distance table's "
                            "rotation covers no more",
                            length, positions));
    auto h = norm(b, add(b, a, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {attn / "output" / "LayerNorm"});
    auto f = feed_forward(b, h, n.ffn(),
                          {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = l,
                           .up = l / "intermediate" / "dense", .down = l / "output" / "dense", .bias = false,
                           .down_bias = false, .output_dropout = hidden_dropout});
    x = norm(b, add(b, f, h, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "output" / "LayerNorm"});
  }
  b.set_block(-1);
  if (!ctc) return x;
  return lm_head(b, x, "CTC_Head", {.module = Scope("ctc_head"), .hidden = hidden, .vocab = c.dim({"vocab_size"}, 8065),
                                    .bias = true});
}

}  // namespace
}  // namespace mctct_impl

const Family& mctct_family() {
  static const Family family{"mctct", "models/deprecated/mctct/modeling_mctct.py", classes("MCTCT", {heads::ForCTC}),
                             mctct_impl::build};
  return family;
}

}  // namespace neurarch::families
