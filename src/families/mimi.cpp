// Mimi (MimiModel in models/mimi/modeling_mimi.py, transformers 4.47.1): Kyutai's streaming codec. EnCodec's
// SEANet encoder and decoder (encodec::seanet_*, with plain convs, no LSTM, no conv shortcut by default) around
// two causal transformers and a split residual vector quantizer.
// - encoder_transformer / decoder_transformer: pre-norm layers (LayerNorms with bias, self_attn without biases
//   under RoPE inside a sliding_window of past frames, a fc1 / fc2 MLP without biases), each branch scaled by a
//   learned per-channel layer scale (self_attn_layer_scale / mlp_layer_scale .scale).
// - When frame_rate differs from the SEANet's (sampling_rate / prod(upsampling_ratios)), `downsample` (a
//   bias-free stride-2 conv of kernel 2 * ratio) and `upsample` (a bias-free transposed conv grouped by
//   upsample_groups) change the frame rate around the quantizer.
// - quantizer: num_semantic_quantizers semantic and num_quantizers - num_semantic_quantizers acoustic codebooks,
//   each group with kernel-1 input_proj / output_proj (bias-free; only when vector_quantization_hidden_dimension
//   differs from hidden_size) and EMA codebook buffers (initialized, cluster_usage, embed_sum).
// The waveform defaults to one second at sampling_rate.
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/encodec.hpp"
#include "families/mimi.hpp"

namespace neurarch::families {
namespace mimi_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct TransformerSpec {
  std::int64_t hidden = 512, layers = 8, heads = 8, kv_heads = 8, head_dim = 64, intermediate = 2048, window = 250;
  std::string activation = "gelu";
  double attention_dropout = 0.0;
  bool bias = false;
};

Value transformer(GraphBuilder& b, Value x, const TransformerSpec& t, const Scope& root) {
  for (std::int64_t i = 0; i < t.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    PreNormLayer layer;
    layer.norm1.module = l / "input_layernorm";
    const Scope attn = l / "self_attn";
    layer.attention = {.hidden = t.hidden, .heads = t.heads, .kv_heads = t.kv_heads, .head_dim = t.head_dim,
                       .causal = true, .window = t.window, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = t.bias,
                       .o_bias = t.bias, .require_divisible = false, .dropout = t.attention_dropout,
                       .rotary = true};
    layer.scale1 = (l / "self_attn_layer_scale")("scale");
    layer.norm2.module = l / "post_attention_layernorm";
    layer.ffn = {.hidden = t.hidden, .intermediate = t.intermediate, .activation = t.activation, .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2", .bias = false, .down_bias = false};
    layer.scale2 = (l / "mlp_layer_scale")("scale");
    x = pre_norm_layer(b, x, b.next_block() - 1, layer);
  }
  b.set_block(-1);
  return x;
}

Value quantizer_group(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, std::int64_t count,
                      std::int64_t hidden, std::int64_t vq_dim, std::int64_t codebook_size, std::int64_t codebook_dim) {
  Value latents = x;
  const bool project = vq_dim != hidden;
  if (project)
    latents = conv1d(b, x, label + "_In",
                     {.module = m / "input_proj", .in_channels = hidden, .out_channels = vq_dim, .bias = false});
  Value quantized;
  for (std::int64_t q = 0; q < count; ++q) {
    const Scope book = m / "layers" / q / "codebook";
    auto code = b.node(NodeType::Embedding, fmt::format("{}_{}", label, q), {x.shape.front(), codebook_dim},
                       {latents}, book);
    b.buffer(code, book("initialized"), {1}, b.param_dtype());
    b.buffer(code, book("cluster_usage"), {codebook_size}, b.param_dtype());
    b.buffer(code, book("embed_sum"), {codebook_size, codebook_dim}, b.param_dtype());
    quantized = q == 0 ? code : add(b, code, quantized, fmt::format("{}_{}_Sum", label, q));
  }
  if (!project) return quantized;
  return conv1d(b, quantized, label + "_Out",
                {.module = m / "output_proj", .in_channels = vq_dim, .out_channels = hidden, .bias = false});
}

// The codec's configuration, as far as its tensors and shapes depend on it (MimiConfig; MimiEncoderConfig and
// MimiDecoderConfig repeat it).
struct Codec {
  encodec::Seanet s;
  TransformerSpec t;
  std::int64_t rate = 0;
  double seanet_rate = 0, frame_rate = 0;
  bool resample = false;
  std::int64_t ratio = 1;
};

Codec read_codec(const Config& c) {
  Codec k;
  encodec::Seanet& s = k.s;
  s.channels = c.dim({"audio_channels"}, 1);
  s.hidden = c.dim({"hidden_size"}, 512);
  s.filters = c.dim({"num_filters"}, 64);
  s.residual_layers = c.integer({"num_residual_layers"}, 1);
  s.kernel = c.dim({"kernel_size"}, 7);
  s.last_kernel = c.dim({"last_kernel_size"}, 3);
  s.residual_kernel = c.dim({"residual_kernel_size"}, 3);
  s.growth = c.dim({"dilation_growth_rate"}, 2);
  s.compress = c.dim({"compress"}, 2);
  s.lstm_layers = 0;
  // upsampling_ratios: None means [8, 6, 5, 4].
  s.ratios = c.raw({"upsampling_ratios"}) ? size_list(c, "upsampling_ratios", {8, 6, 5, 4})
                                          : std::vector<std::int64_t>{8, 6, 5, 4};
  s.norm = encodec::ConvNorm::None;
  s.shortcut = c.flag({"use_conv_shortcut"}, false);
  k.rate = c.dim({"sampling_rate"}, 24000);
  const std::int64_t hop = std::accumulate(s.ratios.begin(), s.ratios.end(), std::int64_t{1}, std::multiplies<>());
  k.seanet_rate = std::ceil(static_cast<double>(k.rate) / static_cast<double>(hop));
  // frame_rate: the config's, else the SEANet's halved by the stride-2 downsample.
  k.frame_rate = c.number({"frame_rate"}, static_cast<double>(k.rate) / static_cast<double>(2 * hop));
  k.resample = k.frame_rate != k.seanet_rate;
  k.ratio = static_cast<std::int64_t>(k.seanet_rate / k.frame_rate);

  TransformerSpec& t = k.t;
  t.hidden = s.hidden;
  t.layers = c.dim({"num_hidden_layers"}, t.layers);
  t.heads = c.dim({"num_attention_heads"}, t.heads);
  t.kv_heads = c.dim({"num_key_value_heads"}, t.heads);
  t.head_dim = c.raw({"head_dim"}) ? c.dim({"head_dim"}, t.hidden / t.heads) : t.hidden / t.heads;
  t.intermediate = c.dim({"intermediate_size"}, t.intermediate);
  t.window = c.raw({"sliding_window"}) ? c.dim({"sliding_window"}, t.window) : 0;
  t.activation = c.text({"hidden_act"}, t.activation);
  t.attention_dropout = c.number({"attention_dropout"}, 0.0);
  t.bias = c.flag({"attention_bias"}, false);
  return k;
}

// Waveform -> SEANet encoder -> encoder_transformer -> downsample; `in.requested_seq` sets the samples (default:
// one second).
Value encode(const BuildInput& in, GraphBuilder& b, const Codec& k) {
  const std::int64_t samples = in.requested_seq ? *in.requested_seq : k.rate;
  auto wave = b.input({samples * k.s.channels}, "audio", "input_values");
  auto x = encodec::seanet_encoder(b, Value{wave.node, {samples, k.s.channels}}, k.s, Scope("encoder") / "layers");
  x = transformer(b, x, k.t, Scope("encoder_transformer"));
  if (k.resample)
    x = encodec::conv(b, x, "Downsample", Scope("downsample"), k.s, k.s.hidden, k.s.hidden, 2 * k.ratio, 2, false);
  return x;
}

// upsample -> decoder_transformer -> SEANet decoder: the quantized frames back to a waveform.
Value decode(const Config& c, GraphBuilder& b, const Codec& k, Value x) {
  if (k.resample)
    x = encodec::conv_transpose(b, x, "Upsample", Scope("upsample"), k.s, k.s.hidden, k.s.hidden, 2 * k.ratio, 2,
                                c.dim({"upsample_groups"}, 512), false);
  x = transformer(b, x, k.t, Scope("decoder_transformer"));
  return encodec::seanet_decoder(b, x, k.s, Scope("decoder") / "layers");
}

}  // namespace
}  // namespace mimi_impl
using namespace mimi_impl;

namespace mimi {

Value model(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const mimi_impl::Codec k = mimi_impl::read_codec(c);
  auto x = mimi_impl::encode(in, b, k);

  const std::int64_t quantizers = c.dim({"num_quantizers"}, 32);
  const std::int64_t semantic = c.integer({"num_semantic_quantizers"}, 1);
  if (semantic >= quantizers)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'num_semantic_quantizers'",
                fmt::format("{} is not below num_quantizers {}", semantic, quantizers));
  if (semantic < 1)
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'num_semantic_quantizers'",
                "a split quantizer without semantic codebooks is not supported");
  const std::int64_t vq_dim = c.dim({"vector_quantization_hidden_dimension"}, 256);
  const std::int64_t codebook_size = c.dim({"codebook_size"}, 2048);
  const std::int64_t codebook_dim = c.dim({"codebook_dim"}, 256);
  const Scope q("quantizer");
  auto sem = mimi_impl::quantizer_group(b, x, "Semantic_Quantizer", q / "semantic_residual_vector_quantizer", semantic,
                             k.s.hidden, vq_dim, codebook_size, codebook_dim);
  auto aco = mimi_impl::quantizer_group(b, x, "Acoustic_Quantizer", q / "acoustic_residual_vector_quantizer",
                             quantizers - semantic, k.s.hidden, vq_dim, codebook_size, codebook_dim);
  x = add(b, aco, sem, "Quantized");
  return mimi_impl::decode(c, b, k, x);
}

Value encoder_model(const BuildInput& in, GraphBuilder& b) {
  return mimi_impl::encode(in, b, mimi_impl::read_codec(in.config));
}

Value decoder_model(const BuildInput& in, GraphBuilder& b) {
  const mimi_impl::Codec k = mimi_impl::read_codec(in.config);
  // One second of frames at frame_rate, else --seq frames.
  const std::int64_t frames =
      in.requested_seq ? *in.requested_seq : static_cast<std::int64_t>(std::ceil(k.frame_rate));
  b.note(fmt::format("{} frames of {} latent channels decoded; --seq sets the frames", frames, k.s.hidden));
  return mimi_impl::decode(in.config, b, k, b.input({frames, k.s.hidden}, "embeddings"));
}

void nested_codec(GraphBuilder& b, const Config& codec_config, const std::string& module) {
  // No block offset: Mimi numbers its blocks from next_block() itself.
  graph::Nested nest(b, {.module = module, .label = "Codec_", .first_block = 0});
  // One second of its own waveform: the outer --seq counts tokens, not samples.
  model(BuildInput{codec_config, "MimiModel", Head::Base, std::nullopt, std::nullopt}, b);
}

}  // namespace mimi

const Family& mimi_family() {
  static const Family family{"mimi", "models/mimi/modeling_mimi.py", classes("Mimi"), mimi::model};
  return family;
}

}  // namespace neurarch::families
