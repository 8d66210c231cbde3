// Perceiver IO (models/perceiver/modeling_perceiver.py + configuration_perceiver.py, checked against transformers
// 4.47.1 and 5.24.0): num_latents learned latents cross-attend once to the preprocessed inputs, then one block of
// num_self_attends_per_block self-attention layers runs num_blocks times with the same weights (a node per run, the
// weights once), and a decoder cross-attends output queries to the latents. Quirks: q/k and v have their own widths
// (qk_channels, v_channels; the encoder's cross-attention takes qk from cross_attention_shape_for_attention), a
// self-attention's output projection maps v_channels to v_channels, and each head class hard-codes its own
// preprocessor and decoder (MaskedLM: 8 heads of 32 q/k channels, queries of max_position_embeddings learned rows,
// logits through the text embedding; the classifiers: one learned query, one head). PerceiverModel built from a config
// alone has no preprocessor and no decoder: it reads d_model-wide inputs and returns the latents.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/family.hpp"
#include "families/shared_parameters.hpp"

namespace neurarch::families {
namespace perceiver_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// The config keys PerceiverEncoder and PerceiverLayer read.
struct Settings {
  std::int64_t num_latents = 0;
  std::int64_t d_latents = 0;
  std::int64_t d_model = 0;
  std::int64_t num_blocks = 0;
  std::int64_t per_block = 0;
  std::int64_t self_heads = 0;
  std::int64_t cross_heads = 0;
  std::optional<std::int64_t> qk_channels;
  std::optional<std::int64_t> v_channels;
  std::string shape_for_attention;
  std::int64_t self_widening = 0;
  std::int64_t cross_widening = 0;
  bool query_residual = true;
  std::string activation;
  double attention_dropout = 0.0;
};

std::optional<std::int64_t> optional_dim(const Config& c, std::string_view key) {
  if (!c.has(key)) return std::nullopt;
  return c.dim({key});
}

Settings read_settings(const Config& c) {
  Settings s;
  s.num_latents = c.dim({"num_latents"}, 256);
  s.d_latents = c.dim({"d_latents"}, 1280);
  s.d_model = c.dim({"d_model"}, 768);
  s.num_blocks = c.dim({"num_blocks"}, 1);
  s.per_block = c.dim({"num_self_attends_per_block"}, 26);
  s.self_heads = c.dim({"num_self_attention_heads"}, 8);
  s.cross_heads = c.dim({"num_cross_attention_heads"}, 8);
  s.qk_channels = optional_dim(c, "qk_channels");
  s.v_channels = optional_dim(c, "v_channels");
  s.shape_for_attention = c.text({"cross_attention_shape_for_attention"}, "kv");
  s.self_widening = c.dim({"self_attention_widening_factor"}, 1);
  s.cross_widening = c.dim({"cross_attention_widening_factor"}, 1);
  s.query_residual = c.flag({"use_query_residual"}, true);
  s.activation = c.text({"hidden_act"}, "gelu");
  s.attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);
  return s;
}

/// One PerceiverLayer: the arguments its constructor receives.
struct LayerSpec {
  Scope module;     ///< the PerceiverLayer
  std::string tag;  ///< node-name suffix
  bool cross = false;
  std::optional<std::int64_t> qk_channels, v_channels;
  std::int64_t heads = 1;
  std::int64_t q_dim = 0;
  std::int64_t kv_dim = 0;
  std::int64_t widening = 1;
  bool query_residual = true;
};

/// PerceiverAttention's channel defaults: a cross-attention without qk_channels takes the width
/// cross_attention_shape_for_attention names, anything else the queries' width; v defaults to qk.
struct Channels {
  std::int64_t qk = 0, v = 0, out = 0;
};

Channels channels(const Config& c, const Settings& s, const LayerSpec& l) {
  Channels ch;
  if (l.qk_channels) {
    ch.qk = *l.qk_channels;
  } else if (!l.cross) {
    ch.qk = l.q_dim;
  } else if (s.shape_for_attention == "q") {
    ch.qk = l.q_dim;
  } else if (s.shape_for_attention == "kv") {
    ch.qk = l.kv_dim;
  } else {
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'cross_attention_shape_for_attention'",
                fmt::format("'{}' is neither 'q' nor 'kv'", s.shape_for_attention));
  }
  ch.v = l.v_channels.value_or(ch.qk);
  // PerceiverSelfOutput: a cross-attention maps back to the queries' width, a self-attention keeps v's.
  ch.out = l.cross ? l.q_dim : ch.v;
  return ch;
}

/// A LayerNorm node over x whose weight is `width` wide (nn.LayerNorm(q_dim) whatever x brings).
Value layer_norm(GraphBuilder& b, SharedParameters& p, const Value& x, const std::string& name, const Scope& module,
                 std::int64_t width) {
  auto out = b.node(NodeType::LayerNorm, name, x.shape, {x}, module);
  p(out, module("weight"), {width}, graph::TensorRole::Norm);
  p(out, module("bias"), {width}, graph::TensorRole::Bias);
  if (!x.shape.empty() && x.shape.back() != width)
    b.fail(out, fmt::format("LayerNorm of width {} receives {} features", width, x.shape.back()));
  return out;
}

std::int64_t length_of(const Shape& s) { return s.size() >= 2 ? s[s.size() - 2] : 1; }

/// PerceiverLayer: layernorm1(x) (and layernorm2(inputs) for a cross-attention) -> q/k/v -> attention -> output
/// dense (+ x when use_query_residual), then h + mlp(layernorm(h)). `inputs` is null for a self-attention.
Value perceiver_layer(GraphBuilder& b, SharedParameters& p, const Config& c, const Settings& s, const Value& x,
                      const Value* inputs, const LayerSpec& l) {
  const Channels ch = channels(c, s, l);
  const Scope attention = l.module / "attention";
  const Scope self = attention / "self";
  auto q = layer_norm(b, p, x, "LayerNorm_" + l.tag + "_q", self / "layernorm1", l.q_dim);
  std::optional<Value> kv;
  if (inputs) kv = layer_norm(b, p, *inputs, "LayerNorm_" + l.tag + "_kv", self / "layernorm2", l.kv_dim);
  const std::int64_t queries = length_of(x.shape);
  const std::int64_t keys = kv ? length_of(kv->shape) : queries;
  auto a = kv ? b.node(NodeType::MultiHeadAttention, "Attention_" + l.tag, {queries, ch.out}, {q, *kv}, attention)
              : b.node(NodeType::MultiHeadAttention, "Attention_" + l.tag, {queries, ch.out}, {q}, attention);
  // q/k heads are qk / heads wide and v heads v / heads: the graph has one head width, their mean, which gives
  // the exact q + k + v + output sizes and the exact QK^T + PV work.
  const std::int64_t head_dim = (ch.qk + ch.v) / (2 * l.heads);
  b.at(a).attention = graph::AttentionAttrs{.heads = l.heads, .kv_heads = l.heads, .head_dim = head_dim,
                                            .query_len = queries, .kv_len = keys, .dropout = s.attention_dropout};
  if (kv) b.at(a).attention->kv_input = kv->node;
  const std::int64_t kv_dim = l.cross ? l.kv_dim : l.q_dim;
  p.linear(a, self / "query", l.q_dim, ch.qk);
  const auto keys_read = kv ? graph::Operand::Memory : graph::Operand::Input;
  p.linear(a, self / "key", kv_dim, ch.qk, true, keys_read);
  p.linear(a, self / "value", kv_dim, ch.v, true, keys_read);
  p.linear(a, attention / "output" / "dense", ch.v, ch.out, true, graph::Operand::Inner);
  if (ch.qk % l.heads != 0)
    b.fail(a, fmt::format("qk_channels ({}) must be divisible by num_heads ({})", ch.qk, l.heads));
  else if (ch.v % l.heads != 0)
    b.fail(a, fmt::format("v_channels ({}) must be divisible by num_heads ({})", ch.v, l.heads));
  // Noted once per kind of layer, not for every self-attention run.
  if (ch.qk != ch.v && (l.cross || l.tag == "0"))
    b.note(fmt::format("{}: q/k heads of {} and v heads of {} channels are planned as {}-wide heads",
                       attention.path(), ch.qk / l.heads, ch.v / l.heads, head_dim));

  Value h = a;
  if (l.query_residual) h = add(b, a, x, "Add_" + l.tag + "_1");
  const Scope mlp = l.module / "mlp";
  auto n = layer_norm(b, p, h, "LayerNorm_" + l.tag, l.module / "layernorm", l.q_dim);
  const std::int64_t inner = l.widening * l.q_dim;
  auto f = b.node(NodeType::FeedForward, "FFN_" + l.tag, {queries, l.q_dim}, {n}, mlp);
  b.at(f).feed_forward = graph::FeedForwardAttrs{l.q_dim, inner, s.activation, false};
  p.linear(f, mlp / "dense1", l.q_dim, inner);
  p.linear(f, mlp / "dense2", inner, l.q_dim, true, graph::Operand::Inner);
  return add(b, f, h, "Add_" + l.tag + "_2");
}

/// PerceiverEmbeddings + PerceiverEncoder over `inputs` ([N, kv_dim]): the latents [num_latents, d_latents].
Value encoder(GraphBuilder& b, const Config& c, const Settings& s, const Value& inputs, const Scope& root) {
  const Scope embeddings = root / "embeddings";
  auto latents = b.node(NodeType::LearnedPosEmbed, "Latents", {s.num_latents, s.d_latents}, {inputs}, embeddings);
  b.parameter(latents, embeddings("latents"), {s.num_latents, s.d_latents}, graph::TensorRole::Embedding);
  if (s.d_latents % s.self_heads != 0)
    b.fail(latents, fmt::format("num_z_channels ({}) must be divisible by num_self_attend_heads ({})", s.d_latents,
                                s.self_heads));
  if (s.d_latents % s.cross_heads != 0)
    b.fail(latents, fmt::format("num_z_channels ({}) must be divisible by num_cross_attend_heads ({})", s.d_latents,
                                s.cross_heads));
  const Scope enc = root / "encoder";
  SharedParameters p(b);
  b.set_block(0);
  Value x = perceiver_layer(b, p, c, s, latents, &inputs,
                            {.module = enc / "cross_attention", .tag = "Cross", .cross = true,
                             .qk_channels = s.qk_channels, .v_channels = s.v_channels, .heads = s.cross_heads,
                             .q_dim = s.d_latents, .kv_dim = inputs.shape.back(), .widening = s.cross_widening,
                             .query_residual = s.query_residual});
  // The block of self-attention layers runs num_blocks times: every run is a node, its weights are the first run's.
  for (std::int64_t run = 0; run < s.num_blocks; ++run)
    for (std::int64_t k = 0; k < s.per_block; ++k) {
      const std::int64_t i = run * s.per_block + k;
      b.set_block(static_cast<int>(i + 1));
      x = perceiver_layer(b, p, c, s, x, nullptr,
                          {.module = enc / "self_attends" / k, .tag = fmt::format("{}", i), .cross = false,
                           .qk_channels = s.qk_channels, .v_channels = s.v_channels, .heads = s.self_heads,
                           .q_dim = s.d_latents, .kv_dim = s.d_latents, .widening = s.self_widening,
                           .query_residual = true});
    }
  b.set_block(-1);
  return x;
}

/// PerceiverBasicDecoder's cross-attention from `query` to the latents `z`, as its constructor defaults it.
struct DecoderSpec {
  Scope module;  ///< the PerceiverBasicDecoder
  std::optional<std::int64_t> qk_channels, v_channels;
  std::int64_t heads = 1;
  bool query_residual = false;
};

Value decode(GraphBuilder& b, const Config& c, const Settings& s, const Value& query, const Value& z,
             const DecoderSpec& d) {
  SharedParameters p(b);
  return perceiver_layer(b, p, c, s, query, &z,
                         {.module = d.module / "decoding_cross_attention", .tag = "Decoder", .cross = true,
                          .qk_channels = d.qk_channels, .v_channels = d.v_channels, .heads = d.heads,
                          .q_dim = query.shape.back(), .kv_dim = s.d_latents, .widening = 1,
                          .query_residual = d.query_residual});
}

/// A PerceiverTrainablePositionEncoding of [rows, width] read as queries (a batch-expanded parameter).
Value trainable_positions(GraphBuilder& b, const Value& from, const std::string& name, const Scope& module,
                          std::int64_t rows, std::int64_t width) {
  auto out = b.node(NodeType::LearnedPosEmbed, name, {rows, width}, {from}, module);
  b.parameter(out, module("position_embeddings"), {rows, width}, graph::TensorRole::Embedding);
  return out;
}

/// PerceiverClassificationDecoder: one learned d_latents-wide query, one head, final_layer to the labels.
Value classification_decoder(GraphBuilder& b, const BuildInput& in, const Settings& s, const Value& z,
                             const Scope& root) {
  const Scope d = root / "decoder" / "decoder";
  auto query = trainable_positions(b, z, "Decoder_Query", d / "output_position_encodings", 1, s.d_latents);
  auto h = decode(b, in.config, s, query, z, {.module = d, .heads = 1, .query_residual = true});
  auto logits = classifier(b, h, "Classifier", d / "final_layer", s.d_latents, in.num_labels(), true);
  return Value{logits.node, {in.num_labels()}};  // logits[:, 0, :]
}

/// PerceiverFourierPositionEncoding's width: sin and cos of num_bands frequencies per dimension, plus the
/// positions themselves (concat_pos).
std::int64_t fourier_width(std::int64_t bands, std::int64_t dims) { return 2 * bands * dims + dims; }

/// Parameter-free Fourier features of the positions concatenated to x's channels.
Value concat_fourier(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t bands,
                     std::int64_t dims) {
  return b.node(NodeType::Add, name, {x.shape.front(), x.shape.back() + fourier_width(bands, dims)}, {x});
}

/// A [C, H, W] map as channels-last tokens [H * W, C] (permute and reshape: a view).
Value tokens_of_map(const Value& map) {
  return Value{map.node, {map.shape.size() == 3 ? map.shape[1] * map.shape[2] : 0, map.shape.front()}};
}

std::vector<std::int64_t> int_list(const Config& c, std::string_view key, std::vector<std::int64_t> fallback,
                                   std::size_t size) {
  const auto* v = c.raw({key});
  if (!v) {
    c.record_default(key, fallback);
    return fallback;
  }
  std::vector<std::int64_t> out;
  if (v->is_array() && v->size() == size)
    for (const auto& e : *v)
      if (e.is_number_integer() && e.get<std::int64_t>() > 0) out.push_back(e.get<std::int64_t>());
  if (out.size() != size)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key '" + std::string(key) + "'",
                fmt::format("expected a list of {} positive integers", size));
  return out;
}

// ---------------------------------------------------------------- the heads' preprocessors

/// PerceiverTextPreprocessor: token embeddings plus learned positions, d_model wide.
Value text_inputs(GraphBuilder& b, const BuildInput& in, const Scope& pre) {
  const Config& c = in.config;
  const std::int64_t d_model = c.dim({"d_model"}, 768);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 2048);
  auto ids = b.input({in.sequence_length(positions)}, "tokens", "inputs");
  auto x = token_embedding(b, ids, "Token_Embedding", pre / "embeddings", c.dim({"vocab_size"}, 262), d_model);
  return learned_positions(b, x, "Position_Embedding", pre / "position_embeddings", positions, d_model);
}

/// PerceiverImagePreprocessor(prep_type="conv1x1", out_channels=256, trainable positions of image_size**2 rows
/// projected 256 -> 256, concatenated).
Value learned_image_inputs(GraphBuilder& b, const BuildInput& in, const Scope& pre) {
  const std::int64_t size = in.config.dim({"image_size"}, 56);
  const std::int64_t side = in.image_size(size);
  auto pixels = b.input({3, side, side}, "pixels", "inputs");
  auto map = conv2d(b, pixels, "Conv1x1", {.module = pre / "convnet_1x1", .in = 3, .out = 256, .kernel = 1});
  auto x = tokens_of_map(map);
  auto pos = trainable_positions(b, x, "Image_Positions", pre / "position_embeddings", size * size, 256);
  if (x.shape.front() != size * size)
    b.fail(pos, fmt::format("{} trainable positions (image_size {}) for a {}x{} map: the reference interpolates only "
                            "when asked (interpolate_pos_encoding)", size * size, size, side, side));
  pos = dense(b, pos, "Positions_Projection", pre / "positions_projection", 256, 256, true);
  return b.node(NodeType::Add, "Concat_Positions", {x.shape.front(), 512}, {x, pos});
}

/// PerceiverImagePreprocessor(prep_type="pixels"): the pixels themselves with 2-D Fourier features (64 bands).
Value fourier_image_inputs(GraphBuilder& b, const BuildInput& in) {
  // The model reads no image size; its image processor crops to 224 (max_resolution is 224 too).
  const std::int64_t side = in.image_size(224);
  auto pixels = b.input({3, side, side}, "pixels", "inputs");
  return concat_fourier(b, tokens_of_map(pixels), "Concat_Fourier_Positions", 64, 2);
}

/// PerceiverImagePreprocessor(prep_type="conv"): Conv2DDownsample (7x7 stride-2 "same" conv to 64 channels,
/// batch norm, ReLU, 3x3 stride-2 max pool), then 2-D Fourier features (64 bands).
Value conv_image_inputs(GraphBuilder& b, const BuildInput& in, const Scope& pre) {
  const std::int64_t side = in.image_size(224);
  auto pixels = b.input({3, side, side}, "pixels", "inputs");
  const Scope net = pre / "convnet";
  auto map = conv2d(b, pixels, "Conv", {.module = net / "conv", .in = 3, .out = 64, .kernel = 7, .stride = 2,
                                        .padding = 3, .bias = false});
  map = batch_norm(b, map, "BatchNorm", net / "batchnorm", "relu");
  map = pool(b, map, "MaxPool", true, 3, 2, 0);
  return concat_fourier(b, tokens_of_map(map), "Concat_Fourier_Positions", 64, 2);
}

// ---------------------------------------------------------------- the heads

Value masked_lm(GraphBuilder& b, const BuildInput& in, const Settings& s) {
  const Scope root("perceiver");
  auto x = text_inputs(b, in, root / "input_preprocessor");
  auto z = encoder(b, in.config, s, x, root);
  const std::int64_t positions = in.config.dim({"max_position_embeddings"}, 2048);
  const Scope d = root / "decoder";
  // The queries are every learned output position, whatever the input's length.
  auto query = trainable_positions(b, z, "Decoder_Query", d / "output_position_encodings", positions, s.d_model);
  auto h = decode(b, in.config, s, query, z,
                  {.module = d, .qk_channels = 8 * 32, .v_channels = s.d_model, .heads = 8, .query_residual = false});
  // PerceiverEmbeddingDecoder: a matmul with the token embedding's weight plus a bias of its own.
  return lm_head(b, h, "LM_Head",
                 {.module = Scope("embedding_decoder"), .hidden = s.d_model,
                  .vocab = in.config.dim({"vocab_size"}, 262), .bias = true,
                  .tied_weight = (root / "input_preprocessor" / "embeddings")("weight")});
}

/// PerceiverForOpticalFlow: two frames of 3x3 patches ([2, 27, H, W], H x W = train_size) stacked in time
/// (54 values a pixel), a linear to 64 channels, 2-D Fourier features; the preprocessed inputs are the decoder's
/// queries and final_layer gives a 2-channel flow per pixel.
Value optical_flow(GraphBuilder& b, const BuildInput& in, const Settings& s) {
  const Scope root("perceiver");
  const auto train = int_list(in.config, "train_size", {368, 496}, 2);
  auto frames = b.input({2, 27, train[0], train[1]}, "pixels", "inputs");
  const Scope pre = root / "input_preprocessor";
  const std::int64_t pixels = train[0] * train[1];
  auto x = dense(b, Value{frames.node, {pixels, 54}}, "Patch_Projection", pre / "conv_after_patches", 54, 64, true);
  x = concat_fourier(b, x, "Concat_Fourier_Positions", 64, 2);
  auto z = encoder(b, in.config, s, x, root);
  const Scope d = root / "decoder" / "decoder";
  auto h = decode(b, in.config, s, x, z, {.module = d, .heads = 1, .query_residual = false});
  auto flow = dense(b, h, "Flow_Projection", d / "final_layer", x.shape.back(), 2, true);
  return Value{flow.node, {train[0], train[1], 2}};
}

/// PerceiverForMultimodalAutoencoding: audio patches, video patches and a one-hot label, each with its position
/// features, padded with learned per-modality channels to one width (and the label replaced by a learned mask token),
/// concatenated in time; decoder queries per modality (Fourier features of every audio patch and every output pixel,
/// a learned label query), padded alike; one decoder over all of them, and a linear per modality.
Value multimodal(GraphBuilder& b, const BuildInput& in, const Settings& s) {
  const Config& c = in.config;
  const std::int64_t frames = c.dim({"num_frames"}, 16);
  const std::int64_t samples_per_patch = c.dim({"samples_per_patch"}, 16);
  const std::int64_t audio_samples = frames * c.dim({"audio_samples_per_frame"}, 1920);
  const std::int64_t labels = in.num_labels();
  const std::int64_t out_channels = c.dim({"output_num_channels"}, 512);
  const std::int64_t label_query = c.dim({"_label_trainable_num_channels"}, 1024);
  const auto output_shape = int_list(c, "output_shape", {1, 16, 224, 224}, 4);

  const Scope root("perceiver");
  const Scope pre = root / "input_preprocessor";
  // image_size is the video's side in the image preprocessor's Fourier max_resolution; the frames are that size.
  const std::int64_t side = in.image_size(c.dim({"image_size"}, 56));
  auto video = b.input({frames, 3, side, side}, "pixels", "image");
  auto audio = b.input({audio_samples, 1}, "audio", "audio");
  auto label = b.input({labels}, "labels", "label");

  // Per modality: samples, channels before padding.
  const std::int64_t audio_patches = audio_samples / samples_per_patch;
  const std::int64_t audio_width = samples_per_patch + fourier_width(192, 1);
  const std::int64_t image_tokens = frames * (side / 4) * (side / 4);
  const std::int64_t image_width = 3 * 4 * 4 + fourier_width(32, 3);
  const std::int64_t width = std::max({audio_width, image_width, labels}) + 4;  // min_padding_size=4

  auto padded = [&](const Value& features, const std::string& modality, std::int64_t rows, std::int64_t own) {
    auto out = b.node(NodeType::Add, "Pad_" + modality, {rows, width}, {features}, pre);
    b.parameter(out, (pre / "padding")(modality), {1, width - own}, graph::TensorRole::Other);
    return out;
  };
  auto a = concat_fourier(b, Value{audio.node, {audio_patches, samples_per_patch}}, "Audio_Fourier_Positions", 192,
                          1);
  a = padded(a, "audio", audio_patches, audio_width);
  auto v = concat_fourier(b, Value{video.node, {image_tokens, 3 * 4 * 4}}, "Image_Fourier_Positions", 32, 3);
  v = padded(v, "image", image_tokens, image_width);
  auto l = padded(Value{label.node, {1, labels}}, "label", 1, labels);
  // mask_probs {image: 0, audio: 0, label: 1}: each modality has a mask token, and the label is always replaced
  // by its own.
  auto mask = b.node(NodeType::Add, "Mask", {1, width}, {l}, pre);
  for (const char* modality : {"image", "audio", "label"}) b.parameter(mask, (pre / "mask")(modality), {1, width}, graph::TensorRole::Other);
  auto x = b.node(NodeType::Add, "Concat_Modalities", {audio_patches + image_tokens + 1, width}, {a, v, mask});
  if (side % 4 != 0) b.fail(video, fmt::format("a {}x{} frame is not a whole number of 4x4 patches", side, side));
  if (audio_samples % samples_per_patch != 0)
    b.fail(audio, fmt::format("{} audio samples are not a whole number of {}-sample patches", audio_samples,
                              samples_per_patch));

  auto z = encoder(b, c, s, x, root);

  const Scope dec = root / "decoder";
  b.note("the decoder is planned with every output query in one pass (no subsampled_output_points); the reference's "
         "example decodes the video in chunks of subsampled points");
  const std::int64_t image_queries = output_shape[1] * output_shape[2] * output_shape[3];
  const std::int64_t audio_query = fourier_width(192, 1), image_query = fourier_width(32, 3);
  const std::int64_t query_width = std::max({audio_query, image_query, label_query}) + 2;  // min_padding_size=2
  auto query_padded = [&](const Value& q, const std::string& modality, std::int64_t rows, std::int64_t own) {
    auto out = b.node(NodeType::Add, "Query_Pad_" + modality, {rows, query_width}, {q}, dec);
    b.parameter(out, (dec / "padding")(modality), {1, query_width - own}, graph::TensorRole::Other);
    return out;
  };
  auto qa = query_padded(b.node(NodeType::Add, "Audio_Query", {audio_patches, audio_query}, {z}), "audio",
                         audio_patches, audio_query);
  auto qi = query_padded(b.node(NodeType::Add, "Image_Query", {image_queries, image_query}, {z}), "image",
                         image_queries, image_query);
  auto ql = query_padded(trainable_positions(b, z, "Label_Query",
                                             dec / "modalities" / "label" / "decoder" / "output_position_encodings", 1,
                                             label_query),
                         "label", 1, label_query);
  auto query = b.node(NodeType::Add, "Concat_Queries", {audio_patches + image_queries + 1, query_width}, {qa, qi, ql});
  const Scope basic = dec / "decoder";
  auto h = decode(b, c, s, query, z, {.module = basic, .heads = 1, .query_residual = false});
  h = dense(b, h, "Decoder_Projection", basic / "final_layer", query_width, out_channels, true);

  const Scope post = root / "output_postprocessor" / "modalities";
  dense(b, Value{h.node, {audio_patches, out_channels}}, "Audio_Postprocessor", post / "audio" / "classifier",
        out_channels, samples_per_patch, true);
  dense(b, Value{h.node, {image_queries, out_channels}}, "Image_Postprocessor", post / "image" / "classifier",
        out_channels, 3, true);
  return classifier(b, Value{h.node, {1, out_channels}}, "Label_Postprocessor", post / "label" / "classifier",
                    out_channels, labels, true);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Settings s = read_settings(c);
  const std::string_view cls = in.class_name;
  if (cls == "PerceiverForMaskedLM") return masked_lm(b, in, s);
  if (cls == "PerceiverForOpticalFlow") return optical_flow(b, in, s);
  if (cls == "PerceiverForMultimodalAutoencoding") return multimodal(b, in, s);
  const Scope root("perceiver");
  const Scope pre = root / "input_preprocessor";
  Value x;
  if (cls == "PerceiverForSequenceClassification")
    x = text_inputs(b, in, pre);
  else if (cls == "PerceiverForImageClassificationLearned")
    x = learned_image_inputs(b, in, pre);
  else if (cls == "PerceiverForImageClassificationFourier")
    x = fourier_image_inputs(b, in);
  else if (cls == "PerceiverForImageClassificationConvProcessing")
    x = conv_image_inputs(b, in, pre);
  else  // PerceiverModel from a config alone: d_model-wide inputs (as long as --seq, else the positions), no decoder.
    return encoder(b, c, s, b.input({in.sequence_length(c.dim({"max_position_embeddings"}, 2048)), s.d_model},
                                    "embeddings", "inputs"),
                   Scope());
  return classification_decoder(b, in, s, encoder(b, c, s, x, root), root);
}

}  // namespace
}  // namespace perceiver_impl

const Family& perceiver_family() {
  static const Family family{
      "perceiver", "models/perceiver/modeling_perceiver.py",
      classes("Perceiver", {heads::ForMaskedLM, heads::ForSequenceClassification,
                            {"ForImageClassificationLearned", Head::ImageClassification},
                            {"ForImageClassificationFourier", Head::ImageClassification},
                            {"ForImageClassificationConvProcessing", Head::ImageClassification},
                            {"ForOpticalFlow", Head::PreTraining},
                            {"ForMultimodalAutoencoding", Head::PreTraining}}),
      perceiver_impl::build};
  return family;
}

}  // namespace neurarch::families
