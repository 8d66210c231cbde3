// TVLT (models/deprecated/tvlt/modeling_tvlt.py + configuration_tvlt.py, transformers 4.47.1; 5.x removed it): a
// textless ViT over one token sequence: a CLS embedding, the video's patches (a Conv2d per frame, plus a per-patch
// position, a per-frame temporal and a type embedding) and the audio spectrogram's patches (a Conv2d, plus a
// per-frequency, a per-time-step position and a type embedding), through ViT-layout pre-norm layers
// (layernorm_before / attention.attention / layernorm_after). TvltForPreTraining runs the encoder twice on shared
// weights in a training step: once unmasked on pixel_values_mixed for the matching head, once MAE-style on the
// kept patches, whose decoder (shared weights) then runs once for the video and once for the audio.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/shared_parameters.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace tvlt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// One stack of TvltLayer: the encoder or, with the decoder_* sizes, the MAE decoder.
struct Stack {
  Scope layers;
  std::int64_t hidden = 768, count = 12, heads = 12, intermediate = 3072;
  std::string activation = "gelu";
  bool qkv_bias = true;
  double hidden_dropout = 0.0, attention_dropout = 0.0;
};

// TvltLayer `i` (ViT's pre-norm layer): x + attention(layernorm_before(x)), then + FFN(layernorm_after(.)). Written
// over SharedParameters because a training step applies the same layer more than once.
Value tvlt_layer(GraphBuilder& b, SharedParameters& p, const Value& x, const Stack& s, std::int64_t i) {
  b.set_block(static_cast<int>(i));
  const BlockNames names{i};
  const Scope l = s.layers / i;
  const Scope attn = l / "attention";
  auto h = p.layer_norm(x, names.norm(1, NormKind::LayerNorm), l / "layernorm_before");
  const std::int64_t seq = x.shape[x.shape.size() - 2];
  auto a = b.node(NodeType::MultiHeadAttention, names.attention(), x.shape, {h}, attn);
  b.at(a).attention = graph::AttentionAttrs{s.heads, s.heads, s.hidden / s.heads, seq, seq, false, 0,
                                            s.attention_dropout, false, false};
  b.at(a).dropout = s.hidden_dropout;
  for (const char* proj : {"query", "key", "value"})
    p.linear(a, attn / "attention" / proj, s.hidden, s.hidden, s.qkv_bias);
  p.linear(a, attn / "output" / "dense", s.hidden, s.hidden, true, graph::Operand::Inner);
  if (s.hidden % s.heads != 0)
    b.fail(a, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  auto sum = add(b, a, x, names.add(1));
  h = p.layer_norm(sum, names.norm(2, NormKind::LayerNorm), l / "layernorm_after");
  auto f = b.node(NodeType::FeedForward, names.ffn(), x.shape, {h}, l);
  b.at(f).feed_forward = graph::FeedForwardAttrs{s.hidden, s.intermediate, s.activation, false, 0.0};
  b.at(f).dropout = s.hidden_dropout;
  p.linear(f, l / "intermediate" / "dense", s.hidden, s.intermediate);
  p.linear(f, l / "output" / "dense", s.intermediate, s.hidden, true, graph::Operand::Inner);
  auto out = add(b, f, sum, names.add(2));
  b.set_block(-1);
  return out;
}

Value tvlt_layers(GraphBuilder& b, SharedParameters& p, Value x, const Stack& s) {
  for (std::int64_t i = 0; i < s.count; ++i) x = tvlt_layer(b, p, x, s, i);
  return x;
}

// The config's geometry of both modalities.
struct Geometry {
  vit::Size2 image, image_patch;
  std::int64_t frames = 8, image_channels = 3;
  std::int64_t spectrogram = 2048, frequency = 128, audio_channels = 1;
  vit::Size2 audio_patch;
  std::int64_t patches_per_image() const { return (image.h / image_patch.h) * (image.w / image_patch.w); }
  std::int64_t freq_patches() const { return frequency / audio_patch.w; }
  std::int64_t audio_patches() const { return (frequency / audio_patch.w) * (spectrogram / audio_patch.h); }
};

struct Inputs {
  Value pixels, audio;
};

// One TvltModel forward under `root`: both embeddings, `keep_*` of their patches (all of them when unmasked), the
// CLS token in front, the encoder and the final layernorm (absent with use_mean_pooling). Returns the sequence.
Value tvlt_model(GraphBuilder& b, SharedParameters& p, const Config& c, const Scope& root, const Geometry& g,
                 const Stack& enc, const Value& pixels, const Value& audio, std::int64_t keep_pixels,
                 std::int64_t keep_audio) {
  const std::int64_t h = enc.hidden;
  const Scope pix = root / "pixel_embeddings";
  const Scope pix_conv = pix / "patch_embeddings" / "projection";
  auto v = b.node(NodeType::PatchEmbed, "Pixel_Patch_Embed", {g.frames * g.patches_per_image(), h}, {pixels}, pix_conv);
  p(v, pix_conv("weight"), {h, g.image_channels, g.image_patch.h, g.image_patch.w}, graph::TensorRole::Conv);
  p(v, pix_conv("bias"), {h}, graph::TensorRole::Bias);
  if (g.patches_per_image() < 1)
    b.fail(v, fmt::format("image_size {}x{} holds no {}x{} patch", g.image.h, g.image.w, g.image_patch.h,
                          g.image_patch.w));
  // Position, temporal and type embeddings are added to every patch; masking then keeps `keep_pixels` of them.
  v = b.node(NodeType::LearnedPosEmbed, "Pixel_Pos_Embed", {keep_pixels, h}, {v}, pix);
  p(v, pix("type_embed_v"), {1, 1, h}, graph::TensorRole::Embedding);
  p(v, pix("temporal_embed"), {1, g.frames, h}, graph::TensorRole::Embedding);
  p(v, pix("pos_embed_v"), {1, g.patches_per_image(), h}, graph::TensorRole::Embedding);

  const Scope aud = root / "audio_embeddings";
  const Scope aud_conv = aud / "patch_embeddings" / "projection";
  auto a = b.node(NodeType::PatchEmbed, "Audio_Patch_Embed", {g.audio_patches(), h}, {audio}, aud_conv);
  p(a, aud_conv("weight"), {h, g.audio_channels, g.audio_patch.h, g.audio_patch.w}, graph::TensorRole::Conv);
  p(a, aud_conv("bias"), {h}, graph::TensorRole::Bias);
  if (g.freq_patches() < 1)
    b.fail(a, fmt::format("frequency_length {} holds no {}-bin patch", g.frequency, g.audio_patch.w));
  a = b.node(NodeType::LearnedPosEmbed, "Audio_Pos_Embed", {keep_audio, h}, {a}, aud);
  p(a, aud("type_embed_a"), {1, 1, h}, graph::TensorRole::Embedding);
  p(a, aud("pos_embed_a"), {1, g.freq_patches() > 0 ? g.audio_patches() / g.freq_patches() : 0, h}, graph::TensorRole::Embedding);
  p(a, aud("freq_embed"), {1, g.freq_patches(), h}, graph::TensorRole::Embedding);

  // torch.cat of the CLS embedding, the video and the audio tokens: a parameter-free join.
  auto x = b.node(NodeType::Add, "Concat_Tokens", {1 + keep_pixels + keep_audio, h}, {v, a});
  p(x, root("cls_embedding"), {1, 1, h}, graph::TensorRole::Other);
  x = tvlt_layers(b, p, x, enc);
  if (!c.flag({"use_mean_pooling"}, false)) x = p.layer_norm(x, "Final_LayerNorm", root / "layernorm");
  return x;
}

// Python's int(n * (1 - ratio)).
std::int64_t kept(std::int64_t n, double ratio) {
  return static_cast<std::int64_t>(static_cast<double>(n) * (1.0 - ratio));
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  Geometry g;
  g.image = vit::read_size2(c, "image_size", {224, 224, false});
  g.frames = c.dim({"num_frames"}, 8);
  g.image_channels = c.dim({"num_image_channels"}, 3);
  g.image_patch = vit::read_size2(c, "image_patch_size", {16, 16, true});
  g.spectrogram = c.dim({"spectrogram_length"}, 2048);
  g.frequency = c.dim({"frequency_length"}, 128);
  g.audio_channels = c.dim({"num_audio_channels"}, 1);
  g.audio_patch = vit::read_size2(c, "audio_patch_size", {16, 16, true});
  const std::string mask_type = c.text({"audio_mask_type"}, "frame-level");
  if (mask_type != "frame-level" && mask_type != "patch_level")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'audio_mask_type'",
                fmt::format("'{}' is not 'frame-level' or 'patch_level': TvltConfig raises", mask_type));

  Stack enc{.layers = Scope("encoder") / "layer",
            .hidden = c.dim({"hidden_size"}, 768),
            .count = c.dim({"num_hidden_layers"}, 12),
            .heads = c.dim({"num_attention_heads"}, 12),
            .intermediate = c.dim({"intermediate_size"}, 3072),
            .activation = c.text({"hidden_act"}, "gelu"),
            .qkv_bias = c.flag({"qkv_bias"}, true),
            .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0),
            .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0)};
  const Scope root = in.head == Head::Base ? Scope() : Scope("tvlt");
  enc.layers = root / "encoder" / "layer";
  SharedParameters p(b);

  // The clip is [num_frames, C, image, image]; the spectrogram [C, spectrogram_length, frequency_length] (the
  // longest the position table covers; the processor may pass fewer time steps).
  const std::int64_t height = in.requested_image_size.value_or(g.image.h);
  const std::int64_t width = in.requested_image_size.value_or(g.image.w);
  auto pixels = b.input({g.frames, g.image_channels, height, width}, "pixels", "pixel_values");
  auto audio = b.input({g.audio_channels, g.spectrogram, g.frequency}, "audio_features", "audio_values");
  b.set_main_input(pixels);
  if (height != g.image.h || width != g.image.w)
    b.fail(pixels, fmt::format("TVLT's patch embedding refuses a {}x{} frame: it expects image_size {}x{}", height,
                               width, g.image.h, g.image.w));
  const std::int64_t video_patches = g.frames * g.patches_per_image();
  b.note(fmt::format("one clip of {} frames ({} patches) and one {}x{} spectrogram ({} patches)", g.frames,
                     video_patches, g.spectrogram, g.frequency, g.audio_patches()));

  if (in.head == Head::Base)
    return tvlt_model(b, p, c, root, g, enc, pixels, audio, video_patches, g.audio_patches());

  if (in.head == Head::SequenceClassification) {
    auto x = tvlt_model(b, p, c, root, g, enc, pixels, audio, video_patches, g.audio_patches());
    // nn.Sequential(Linear(h, 2h), LayerNorm(2h), GELU, Linear(2h, num_labels)) over the CLS token.
    const Scope head("classifier");
    auto y = dense(b, vit::first_token(x), "Classifier_Dense", head / 0, enc.hidden, 2 * enc.hidden, true);
    y = norm(b, y, "Classifier_LayerNorm", {head / 1});
    b.at(y).activation = "gelu";
    return classifier(b, y, "Classifier", head / 3, 2 * enc.hidden, in.num_labels(), true);
  }

  // TvltForPreTraining.
  const bool matching = c.flag({"task_matching"}, true);
  const bool mae = c.flag({"task_mae"}, true);
  if (!matching && !mae)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": keys 'task_matching', 'task_mae'",
                "TvltForPreTraining needs at least one of them: the reference raises");
  Value out;
  if (matching) {
    // The matching pass reads pixel_values_mixed (with the same audio) unmasked.
    auto mixed = b.input({g.frames, g.image_channels, height, width}, "pixels", "pixel_values_mixed");
    graph::Nested nest(b, {.module = "", .label = "Matching_", .first_block = b.next_block()});
    auto x = tvlt_model(b, p, c, root, g, enc, mixed, audio, video_patches, g.audio_patches());
    const Scope head("matching_head");
    auto pooled = pooler(b, x, "Matching_Pooler", head / "pooler" / "dense", enc.hidden);
    out = classifier(b, pooled, "Matching_FC", head / "fc", enc.hidden, 1, true);
  }
  if (!mae) return out;

  // The MAE pass (training only): int(n * (1 - ratio)) patches of each modality are kept.
  const std::int64_t keep_pixels = kept(video_patches, c.number({"pixel_mask_ratio"}, 0.75));
  const std::int64_t keep_audio = kept(g.audio_patches(), c.number({"audio_mask_ratio"}, 0.15));
  b.note(fmt::format("TvltForPreTraining's MAE pass keeps {} of {} video and {} of {} audio patches", keep_pixels,
                     video_patches, keep_audio, g.audio_patches()));
  Value x;
  {
    graph::Nested nest(b, {.module = "", .label = "MAE_", .first_block = b.next_block()});
    x = tvlt_model(b, p, c, root, g, enc, pixels, audio, keep_pixels, keep_audio);
  }
  if (mask_type == "patch_level")
    b.fail(x, "audio_mask_type 'patch_level' passes TvltConfig's check but the masking knows only 'patch-level': "
              "the reference's MAE pass raises");

  Stack dec = enc;
  dec.layers = Scope("decoder") / "decoder_layers";
  dec.hidden = c.dim({"decoder_hidden_size"}, 512);
  dec.count = c.dim({"decoder_num_hidden_layers"}, 8);
  dec.heads = c.dim({"decoder_num_attention_heads"}, 16);
  dec.intermediate = c.dim({"decoder_intermediate_size"}, 2048);
  const std::int64_t pixel_out = g.image_patch.h * g.image_patch.h * g.image_channels;  // image_patch_size[0] ** 2
  const std::int64_t audio_out = g.audio_patch.h * g.audio_patch.w * g.audio_channels;

  // Each modality: its slice of the encoder output through encoder_to_decoder, its mask token refilling the dropped
  // patches, its decoder positions, the shared decoder and its own MAE head.
  auto decode = [&](std::string_view label, std::int64_t keep, std::int64_t total, std::string_view modality,
                    const std::vector<std::pair<std::string, graph::Shape>>& embeds, std::int64_t out_dim) {
    graph::Nested nest(b, {.module = "", .label = std::string(label), .first_block = b.next_block()});
    auto y = b.node(NodeType::Linear, "Encoder_To_Decoder", {keep, dec.hidden}, {x}, Scope("encoder_to_decoder"));
    p.linear(y, Scope("encoder_to_decoder"), enc.hidden, dec.hidden);
    y = b.node(NodeType::LearnedPosEmbed, "Decoder_Pos_Embed", {total, dec.hidden}, {y});
    p(y, fmt::format("{}_mask_token", modality), {1, 1, dec.hidden}, graph::TensorRole::Other);
    for (const auto& [name, shape] : embeds) p(y, name, shape, graph::TensorRole::Embedding);
    y = tvlt_layers(b, p, y, dec);
    y = p.layer_norm(y, "Decoder_LayerNorm", Scope("decoder") / "layernorm");
    const Scope head(fmt::format("{}_mae_head", modality));
    auto logits = b.node(NodeType::Linear, "MAE_Head", {total, out_dim}, {y}, head / "decoder");
    p.linear(logits, head / "decoder", dec.hidden, out_dim);
    return logits;
  };
  decode("Pixel_Decoder_", keep_pixels, video_patches, "pixel",
         {{"decoder_pixel_pos_embed", {1, g.patches_per_image(), dec.hidden}},
          {"decoder_temporal_embed", {1, g.frames, dec.hidden}},
          {"decoder_pixel_type_embed", {1, 1, dec.hidden}}},
         pixel_out);
  return decode("Audio_Decoder_", keep_audio, g.audio_patches(), "audio",
                {{"decoder_audio_pos_embed",
                  {1, g.freq_patches() > 0 ? g.audio_patches() / g.freq_patches() : 0, dec.hidden}},
                 {"decoder_freq_embed", {1, g.freq_patches(), dec.hidden}},
                 {"decoder_audio_type_embed", {1, 1, dec.hidden}}},
                audio_out);
}

}  // namespace
}  // namespace tvlt_impl

const Family& tvlt_family() {
  static const Family family{"tvlt", "models/deprecated/tvlt/modeling_tvlt.py",
                             classes("Tvlt", {heads::ForPreTraining,
                                              {"ForAudioVisualClassification", Head::SequenceClassification}}),
                             tvlt_impl::build};
  return family;
}

}  // namespace neurarch::families
