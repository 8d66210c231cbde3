// X-Codec (XcodecModel in models/xcodec/modeling_xcodec.py, transformers 4.57.6): a codec whose codes carry
// both acoustic and semantic content.
// - acoustic_encoder / acoustic_decoder: the encoder and decoder of a DacModel built from acoustic_model_config
//   (dac.hpp); the reference swaps the decoder's final tanh for an identity.
// - semantic_model: the model of semantic_model_config (HuBERT by default) over the waveform padded by
//   hop_length / 2 on each side; the mean of all its hidden states feeds encoder_semantic (a kernel_size conv,
//   then per stride a block of residual units — ELU, dilated unit_kernel_size conv, ELU, kernel-1 conv, all
//   bias-free — and a biased conv, strided when the stride is not 1).
// - The acoustic and semantic frames are concatenated ([frames, acoustic + semantic hidden]) through `fc`,
//   quantized by num_quantizers Euclidean codebooks (EMA buffers inited / cluster_size / embed / embed_avg,
//   num_quantizers from target_bandwidths[-1], frame_rate and log2(codebook_size)), then `fc2` feeds the
//   acoustic decoder and `fc1` decoder_semantic (conv1, blocks of a conv or transposed conv and residual units,
//   conv2), which reconstructs the semantic features for the training loss.
// The waveform defaults to one second at sample_rate.
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/dac.hpp"

namespace neurarch::families {
namespace xcodec_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct SemanticSpec {
  std::int64_t hidden = 768, kernel = 3, unit_kernel = 3;
  std::vector<std::int64_t> strides{1, 1}, ratios{1, 1}, dilations{1, 1};
};

Value elu(GraphBuilder& b, const Value& x, const std::string& name) {
  auto out = b.node(NodeType::Linear, name, x.shape, {x});
  b.at(out).activation = "elu";
  return out;
}

Value residual_unit(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, std::int64_t dim,
                    const SemanticSpec& s, std::int64_t dilation) {
  auto h = elu(b, x, label + "_ELU_1");
  h = conv1d(b, h, label + "_Conv_1",
             {.module = m / "conv1", .in_channels = dim, .out_channels = dim, .kernel = s.unit_kernel,
              .padding = (s.unit_kernel - 1) / 2 * dilation, .dilation = dilation, .bias = false});
  h = elu(b, h, label + "_ELU_2");
  h = conv1d(b, h, label + "_Conv_2",
             {.module = m / "conv2", .in_channels = dim, .out_channels = dim, .bias = false});
  return add(b, h, x, label + "_Add");
}

Value residual_units(GraphBuilder& b, Value x, const std::string& label, const Scope& block, std::int64_t dim,
                     const SemanticSpec& s) {
  for (std::size_t u = 0; u < s.dilations.size(); ++u)
    x = residual_unit(b, x, fmt::format("{}_Unit_{}", label, u), block / "res_units" / static_cast<std::int64_t>(u),
                      dim, s, s.dilations[u]);
  return x;
}

Value semantic_encoder(GraphBuilder& b, const Value& features, const SemanticSpec& s, const Scope& m) {
  auto x = conv1d(b, features, "Semantic_Encoder_Conv",
                  {.module = m / "conv", .in_channels = s.hidden, .out_channels = s.hidden, .kernel = s.kernel,
                   .padding = s.kernel / 2, .bias = false});
  std::int64_t in = s.hidden;
  for (std::size_t i = 0; i < s.strides.size(); ++i) {
    const Scope block = m / "conv_blocks" / static_cast<std::int64_t>(i);
    const std::string label = fmt::format("Semantic_Encoder_Block_{}", i);
    const auto out = static_cast<std::int64_t>(static_cast<double>(s.hidden) * static_cast<double>(s.ratios[i]));
    x = residual_units(b, x, label, block, in, s);
    const std::int64_t stride = s.strides[i], kernel = stride == 1 ? 3 : 2 * stride;
    x = conv1d(b, x, label + "_Conv",
               {.module = block / "conv", .in_channels = in, .out_channels = out, .kernel = kernel, .stride = stride,
                .padding = (kernel - 1) / 2});
    in = out;
  }
  return x;
}

Value semantic_decoder(GraphBuilder& b, const Value& latents, const SemanticSpec& s, const Scope& m) {
  const auto width = [&](std::size_t i) {
    return static_cast<std::int64_t>(static_cast<double>(s.hidden) * static_cast<double>(s.ratios[i]));
  };
  auto x = conv1d(b, latents, "Semantic_Decoder_Conv_1",
                  {.module = m / "conv1", .in_channels = s.hidden, .out_channels = width(0), .kernel = s.kernel,
                   .padding = s.kernel / 2, .bias = false});
  for (std::size_t i = 0; i < s.strides.size(); ++i) {
    const Scope block = m / "conv_blocks" / static_cast<std::int64_t>(i);
    const std::string label = fmt::format("Semantic_Decoder_Block_{}", i);
    const std::int64_t in = width(i), out = i + 1 < s.ratios.size() ? width(i + 1) : s.hidden;
    const std::int64_t stride = s.strides[i];
    if (stride == 1) {
      x = conv1d(b, x, label + "_Conv",
                 {.module = block / "conv", .in_channels = in, .out_channels = out, .kernel = 3, .padding = 1});
    } else {
      // ConvTranspose1d(kernel 2s, padding (s + 1) / 2, output_padding s % 2, no bias).
      auto t = conv_transpose1d(b, x, label + "_Upsample", block / "conv", in, out, 2 * stride, stride,
                                (stride + 1) / 2, false);
      x = Value{t.node, {t.shape.front() + stride % 2, out}};
    }
    x = residual_units(b, x, label, block, out, s);
  }
  return conv1d(b, x, "Semantic_Decoder_Conv_2",
                {.module = m / "conv2", .in_channels = s.hidden, .out_channels = s.hidden, .kernel = s.kernel,
                 .padding = s.kernel / 2, .bias = false});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config acoustic_config = c.child("acoustic_model_config", {{"model_type", "dac"}});
  const Config semantic_config = c.child("semantic_model_config", {{"model_type", "hubert"}});
  const std::string acoustic_type = acoustic_config.text({"model_type"}, "dac");
  if (acoustic_type != "dac")
    throw Error(ErrorKind::Unsupported, c.origin() + ": acoustic_model_config: key 'model_type'",
                fmt::format("X-Codec's acoustic model '{}' is not supported (dac is)", acoustic_type));
  const std::string semantic_type = semantic_config.text({"model_type"}, "hubert");
  const Family* semantic_family = find_family(semantic_type);
  if (!semantic_family)
    throw Error(ErrorKind::Unsupported, c.origin() + ": semantic_model_config: key 'model_type'",
                fmt::format("X-Codec's semantic model '{}' is not supported", semantic_type));
  const dac::Spec acoustic = dac::read_spec(acoustic_config);
  SemanticSpec s;
  s.hidden = semantic_config.dim({"hidden_size"}, 768);
  s.kernel = c.dim({"kernel_size"}, 3);
  s.unit_kernel = c.dim({"unit_kernel_size"}, 3);
  s.strides = size_list(c, "strides", s.strides);
  s.ratios = size_list(c, "channel_ratios", s.ratios);
  require_length(c, "channel_ratios", s.ratios, s.strides.size());
  s.dilations = size_list(c, "block_dilations", s.dilations);

  const std::int64_t rate = c.dim({"sample_rate"}, 16000);
  const std::int64_t hop =
      std::accumulate(acoustic.down.begin(), acoustic.down.end(), std::int64_t{1}, std::multiplies<>());
  const std::int64_t samples = in.requested_seq ? *in.requested_seq : rate;

  Value semantic;
  {
    graph::Nested nest(b, {.module = "semantic_model", .label = "Semantic_", .first_block = 0});
    const BuildInput semantic_in{semantic_config, std::string(semantic_family->classes.front().name), Head::Base,
                                 samples + 2 * (hop / 2), std::nullopt};
    semantic = semantic_family->build(semantic_in, b);
  }
  // The mean over the embedding output and every layer's hidden state.
  semantic = b.node(NodeType::Add, "Semantic_Hidden_Mean", semantic.shape, {semantic});
  semantic = semantic_encoder(b, semantic, s, Scope("encoder_semantic"));

  auto wave = b.input({samples}, "audio", "input_values");
  b.set_main_input(wave);
  auto acoustic_latents = dac::encoder(b, wave, acoustic, Scope("acoustic_encoder"));
  if (acoustic_latents.shape.front() != semantic.shape.front())
    b.note(fmt::format("the acoustic encoder gives {} frames and the semantic one {}: the reference re-encodes the "
                       "padded waveform to line them up",
                       acoustic_latents.shape.front(), semantic.shape.front()));
  const std::int64_t frames = semantic.shape.front(), hidden = acoustic.hidden + s.hidden;
  auto x = b.node(NodeType::Add, "Concat_Acoustic_Semantic", {frames, hidden}, {acoustic_latents, semantic});
  x = dense(b, x, "FC", Scope("fc"), hidden, hidden, true);

  // num_quantizers = 1000 * target_bandwidths[-1] // (frame_rate * codebook_nbits).
  double bandwidth = 4.0;
  if (const auto* bw = c.raw({"target_bandwidths"})) {
    if (!bw->is_array() || bw->empty() || !bw->back().is_number())
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'target_bandwidths'", "expected a list of numbers");
    bandwidth = bw->back().get<double>();
  } else {
    c.record_default("target_bandwidths", {0.5, 1, 1.5, 2, 4});
  }
  const std::int64_t codebook_size = c.dim({"codebook_size"}, 1024);
  const std::int64_t codebook_dim = c.dim({"codebook_dim"}, hidden);
  const auto frame_rate = static_cast<std::int64_t>(std::ceil(static_cast<double>(rate) / static_cast<double>(hop)));
  const auto nbits = static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(codebook_size))));
  const auto quantizers =
      static_cast<std::int64_t>(std::floor(1000.0 * bandwidth / static_cast<double>(frame_rate * nbits)));
  if (quantizers < 1)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'target_bandwidths'",
                fmt::format("{} kbps gives no codebook at {} frames/s of {} bits", bandwidth, frame_rate, nbits));
  Value quantized;
  for (std::int64_t q = 0; q < quantizers; ++q) {
    const Scope book = Scope("quantizer") / "quantizers" / q / "codebook";
    auto code = b.node(NodeType::Embedding, fmt::format("Quantizer_{}", q), {frames, codebook_dim}, {x}, book);
    b.buffer(code, book("inited"), {1}, b.param_dtype());
    b.buffer(code, book("cluster_size"), {codebook_size}, b.param_dtype());
    b.buffer(code, book("embed"), {codebook_size, codebook_dim}, b.param_dtype());
    b.buffer(code, book("embed_avg"), {codebook_size, codebook_dim}, b.param_dtype());
    quantized = q == 0 ? code : add(b, code, quantized, fmt::format("Quantizer_{}_Sum", q));
  }
  auto to_semantic = dense(b, quantized, "FC1", Scope("fc1"), codebook_dim, s.hidden, true);
  semantic_decoder(b, to_semantic, s, Scope("decoder_semantic"));
  auto to_acoustic = dense(b, quantized, "FC2", Scope("fc2"), codebook_dim, acoustic.hidden, true);
  return dac::decoder(b, to_acoustic, acoustic, Scope("acoustic_decoder"), false);
}

}  // namespace
}  // namespace xcodec_impl

const Family& xcodec_family() {
  static const Family family{"xcodec", "models/xcodec/modeling_xcodec.py", classes("Xcodec"), xcodec_impl::build};
  return family;
}

}  // namespace neurarch::families
