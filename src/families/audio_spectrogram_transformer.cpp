// Audio Spectrogram Transformer (models/audio_spectrogram_transformer/modeling_audio_spectrogram_transformer.py,
// transformers 4.47.1): DeiT over a log-mel spectrogram. The input [max_length, num_mel_bins] is turned into a
// one-channel [mel, time] image and cut by a Conv2d with a patch_size kernel and overlapping strides
// (frequency_stride, time_stride), so its patch count is ((mel - p) / fs + 1) * ((time - p) / ts + 1); a CLS and a
// distillation token precede the patches. The layers are ViT's. There is no pooler: the pooled output is the mean
// of the first two tokens, which the classification head (LayerNorm + Linear) reads.
#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace audio_spectrogram_transformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t mel = c.dim({"num_mel_bins"}, 128);
  const std::int64_t max_length = c.dim({"max_length"}, 1024);
  const std::int64_t freq_stride = c.dim({"frequency_stride"}, 10);
  const std::int64_t time_stride = c.dim({"time_stride"}, 10);
  // The position table is sized for max_length frames; --seq runs another length, which the stored table refuses.
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : max_length;
  const auto patches_for = [&](std::int64_t time) {
    return ((mel - patch) / freq_stride + 1) * ((time - patch) / time_stride + 1);
  };

  Scope root = in.head == Head::Base ? Scope() : Scope("audio_spectrogram_transformer");
  Scope emb = root / "embeddings";
  const Scope projection = emb / "patch_embeddings" / "projection";
  auto features = b.input({frames, mel}, "audio_features", "input_values");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {2 + patches_for(frames), hidden}, {features}, projection);
  b.parameter(x, projection("weight"), {hidden, 1, patch, patch}, graph::TensorRole::Conv);
  b.parameter(x, projection("bias"), {hidden}, graph::TensorRole::Bias);
  if (mel < patch || frames < patch)
    b.fail(x, fmt::format("a {}x{} spectrogram is smaller than one {}x{} patch", frames, mel, patch, patch));
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("distillation_token"), {1, 1, hidden}, graph::TensorRole::Other);
  const std::int64_t rows = 2 + patches_for(max_length);
  auto pos = vit::position_table(b, x, emb, rows, x.shape);
  if (x.shape.front() != rows)
    b.fail(pos, fmt::format("AST adds its {} learned positions as stored: {} frames give {} tokens; run at --seq {} "
                            "(max_length)",
                            rows, frames, x.shape.front(), max_length));
  b.at(pos).dropout = c.number({"hidden_dropout_prob"}, 0.0);
  x = pos;

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  // pooled = (x[:, 0] + x[:, 1]) / 2
  x = b.node(NodeType::Add, "Mean_CLS_Distillation", {hidden}, {x});
  if (in.head == Head::Base) return x;
  x = norm(b, x, "Head_LayerNorm", {Scope("classifier") / "layernorm"});
  // num_labels 0 makes the dense an nn.Identity.
  if (in.num_labels() == 0) return x;
  return classifier(b, x, "Classifier", Scope("classifier") / "dense", hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace audio_spectrogram_transformer_impl

const Family& audio_spectrogram_transformer_family() {
  static const Family family{"audio_spectrogram_transformer",
                             "models/audio_spectrogram_transformer/modeling_audio_spectrogram_transformer.py",
                             classes("AST", {{"ForAudioClassification", Head::SequenceClassification}}), audio_spectrogram_transformer_impl::build};
  return family;
}

}  // namespace neurarch::families
