// Janus (JanusModel, JanusForConditionalGeneration in models/janus/modeling_janus.py + configuration_janus.py; the
// shared ground truth is transformers 4.57.6's): image understanding through a SigLIP-style tower and image
// generation through a VQ-VAE, around a Llama (text_config).
// - vision_model (JanusVisionModel): SigLIP's vision transformer without the attention-probe head or the inner
//   `vision_model.`: patch Conv2d, a learned table of the configured patches, pre-LayerNorm layers whose attention
//   output is `projection_layer` (q/k/v biased by attention_bias; per-token LayerNorms q_norm / k_norm over the
//   whole width with use_qk_norm), an MLP of hidden × mlp_ratio, post_layernorm;
// - aligner (JanusVisionAlignerMLP): fc1 to projection_dim, then depth - 1 more Linear layers, GELU between; its
//   output replaces the prompt's image tokens;
// - stored for generation, never run by the forward (which only reads images): vqmodel (JanusVQVAE: a
//   Chameleon-style encoder and decoder of GroupNorm ResNet blocks, 1×1-conv attention blocks at the lowest
//   resolution, stride-2 downsampling and nearest ×2 upsampling convs; quant_conv, the codebook quantize.embedding,
//   post_quant_conv), generation_embeddings, generation_aligner and generation_head. Their tensors go on a node that
//   passes the aligned features through, which claims no compute for them.
// - lm_head beside `model`, tied as text_config says (4.57's rule).
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/janus_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace janus_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// Linear layers fc1 (in -> width) and hidden_layers.0 .. depth - 2 (width -> width), GELU between.
Value aligner_mlp(GraphBuilder& b, const Value& x, const std::string& label, const Scope& module, std::int64_t in,
                  std::int64_t width, std::int64_t depth, const std::string& activation) {
  auto h = dense(b, x, label + "_FC1", module / "fc1", in, width, true, depth > 1 ? activation : "");
  for (std::int64_t i = 1; i < depth; ++i)
    h = dense(b, h, fmt::format("{}_Hidden_{}", label, i - 1), module / "hidden_layers" / (i - 1), width, width, true,
              i + 1 < depth ? activation : "");
  return h;
}

// The VQ-VAE's configuration (JanusVQVAEConfig), as far as its tensors depend on it.
struct VqSpec {
  std::int64_t embed_dim = 0, codes = 0, latent = 0, in_channels = 0, out_channels = 0, base = 0, res_blocks = 0;
  std::int64_t projection = 0, token_embed = 0, aligner_layers = 0;
  bool double_latent = false;
  std::vector<std::int64_t> multipliers;
  std::string activation;
};

VqSpec read_vq(const Config& c) {
  VqSpec v;
  v.embed_dim = c.dim({"embed_dim"}, 8);
  v.codes = c.dim({"num_embeddings"}, 16384);
  v.latent = c.dim({"latent_channels"}, 256);
  v.in_channels = c.dim({"in_channels"}, 3);
  v.out_channels = c.dim({"out_channels"}, 3);
  v.base = c.dim({"base_channels"}, 128);
  v.res_blocks = c.dim({"num_res_blocks"}, 2);
  v.projection = c.dim({"projection_dim"}, 2048);
  v.token_embed = c.dim({"image_token_embed_dim"}, 2048);
  v.aligner_layers = c.dim({"num_hidden_layers"}, 2);
  v.double_latent = c.flag({"double_latent"}, false);
  v.activation = c.text({"hidden_act"}, "gelu");
  const auto* listed = c.raw({"channel_multiplier"});
  if (!listed) {
    v.multipliers = {1, 1, 2, 2, 4};
  } else {
    if (!listed->is_array() || listed->empty())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'channel_multiplier'", c.origin()),
                  "expected a non-empty list of positive integers");
    for (const auto& m : *listed) {
      if (!m.is_number_integer() || m.get<std::int64_t>() <= 0)
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'channel_multiplier'", c.origin()),
                    fmt::format("expected positive integers, found {}", m.dump()));
      v.multipliers.push_back(m.get<std::int64_t>());
    }
  }
  return v;
}

// The tensors a module stores but the forward never runs, declared on `owner` (see the file comment): idle, with no
// gradient and no optimizer state.
class Stored {
 public:
  Stored(GraphBuilder& b, const Value& owner) : b_(b), owner_(owner) {}
  void conv(const Scope& m, std::int64_t in, std::int64_t out, std::int64_t k) {
    b_.parameter(owner_, m("weight"), {out, in, k, k}, graph::TensorRole::Conv, kIdle);
    b_.parameter(owner_, m("bias"), {out}, graph::TensorRole::Bias, kIdle);
  }
  void norm(const Scope& m, std::int64_t channels) {
    b_.parameter(owner_, m("weight"), {channels}, graph::TensorRole::Norm, kIdle);
    b_.parameter(owner_, m("bias"), {channels}, graph::TensorRole::Bias, kIdle);
  }
  void linear(const Scope& m, std::int64_t in, std::int64_t out) {
    linear_tensors(b_, owner_, m, in, out, true, kIdle);
  }
  void table(const Scope& m, std::int64_t rows, std::int64_t width) {
    b_.parameter(owner_, m("weight"), {rows, width}, graph::TensorRole::Embedding, kIdle);
  }
  // JanusVQVAEResnetBlock: GroupNorm, 3x3 conv, GroupNorm, 3x3 conv; a 1x1 nin_shortcut when the width changes.
  void resnet(const Scope& m, std::int64_t in, std::int64_t out) {
    norm(m / "norm1", in);
    conv(m / "conv1", in, out, 3);
    norm(m / "norm2", out);
    conv(m / "conv2", out, out, 3);
    if (in != out) conv(m / "nin_shortcut", in, out, 1);
  }
  // JanusVQVAEAttnBlock: GroupNorm and 1x1-conv q, k, v, proj_out.
  void attention(const Scope& m, std::int64_t channels) {
    norm(m / "norm", channels);
    for (const char* p : {"q", "k", "v", "proj_out"}) conv(m / p, channels, channels, 1);
  }
  static constexpr graph::Operand kIdle = graph::Operand::Idle;
  void mid(const Scope& m, std::int64_t channels) {
    resnet(m / "block_1", channels, channels);
    attention(m / "attn_1", channels);
    resnet(m / "block_2", channels, channels);
  }

 private:
  GraphBuilder& b_;
  Value owner_;
};

void vqvae(Stored& s, const Scope& root, const VqSpec& v) {
  const auto levels = static_cast<std::int64_t>(v.multipliers.size());
  const auto width = [&](std::int64_t level) { return v.base * v.multipliers[static_cast<std::size_t>(level)]; };
  const Scope enc = root / "encoder";
  s.conv(enc / "conv_in", v.in_channels, v.base, 3);
  std::int64_t block_in = v.base;
  for (std::int64_t level = 0; level < levels; ++level) {
    const Scope down = enc / "down" / level;
    for (std::int64_t i = 0; i < v.res_blocks; ++i) {
      s.resnet(down / "block" / i, block_in, width(level));
      block_in = width(level);
      // Attention only at the lowest resolution.
      if (level == levels - 1) s.attention(down / "attn" / i, block_in);
    }
    if (level != levels - 1) s.conv(down / "downsample" / "conv", block_in, block_in, 3);
  }
  s.mid(enc / "mid", block_in);
  s.norm(enc / "norm_out", block_in);
  s.conv(enc / "conv_out", block_in, v.double_latent ? 2 * v.latent : v.latent, 3);

  s.table(root / "quantize" / "embedding", v.codes, v.embed_dim);
  s.conv(root / "quant_conv", v.latent, v.embed_dim, 1);
  s.conv(root / "post_quant_conv", v.embed_dim, v.latent, 1);

  const Scope dec = root / "decoder";
  block_in = width(levels - 1);
  s.conv(dec / "conv_in", v.latent, block_in, 3);
  s.mid(dec / "mid", block_in);
  // up[0] is the lowest resolution (the levels reversed), each with num_res_blocks + 1 blocks.
  for (std::int64_t j = 0; j < levels; ++j) {
    const std::int64_t level = levels - 1 - j;
    const Scope up = dec / "up" / j;
    for (std::int64_t i = 0; i <= v.res_blocks; ++i) {
      s.resnet(up / "block" / i, block_in, width(level));
      block_in = width(level);
      if (level == levels - 1) s.attention(up / "attn" / i, block_in);
    }
    if (level != 0) s.conv(up / "upsample" / "conv", block_in, block_in, 3);
  }
  s.norm(dec / "norm_out", block_in);
  s.conv(dec / "conv_out", block_in, v.out_channels, 3);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision = c.child("vision_config");
  const Config vq = c.child("vq_config");
  const Config text = c.child("text_config");
  const auto lm = multimodal::find_language_model(c, text.text({"model_type"}, "llama"), Head::Base, "Janus");
  const VqSpec v = read_vq(vq);
  const std::int64_t vision_hidden = vision.dim({"hidden_size"}, 1024);
  const std::int64_t projection = vision.dim({"projection_dim"}, 2048);
  const std::int64_t depth = vision.dim({"depth"}, 2);
  const Scope model(in.head == Head::Base ? "" : "model");

  Value features;
  {
    graph::Nested nest(b, {.module = (model / "vision_model").path(), .label = "Vision_", .first_block = 0});
    const BuildInput sub{vision, in.class_name, Head::Base, std::nullopt, in.requested_image_size};
    features = janus::vision_model(sub, b, vision);
  }
  features = aligner_mlp(b, features, "Aligner", model / "aligner", vision_hidden, projection, depth,
                         vision.text({"hidden_act"}, "gelu"));
  // The generation modules ride on a pass-through of the image features.
  auto stored = b.node(NodeType::Add, "Generation_Modules_Stored", features.shape, {features});
  {
    Stored s(b, stored);
    vqvae(s, model / "vqmodel", v);
    s.table(model / "generation_embeddings", v.codes, v.embed_dim);
    s.linear(model / "generation_aligner" / "fc1", v.embed_dim, v.projection);
    for (std::int64_t i = 1; i < v.aligner_layers; ++i)
      s.linear(model / "generation_aligner" / "hidden_layers" / (i - 1), v.projection, v.projection);
    s.linear(model / "generation_head" / "proj_out", v.token_embed, v.projection);
    s.linear(model / "generation_head" / "vision_head", v.projection, v.codes);
  }
  b.note("the VQ-VAE and the image-generation modules are stored and trained but not run by this forward, which "
         "reads images only");

  Value out = multimodal::build_language_model(
      in, b, text, lm, {.module = (model / "language_model").path(), .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, stored);
  if (in.head != Head::CausalLM) return out;
  const std::int64_t text_hidden = multimodal::token_width(in, text, lm);
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = text_hidden, .vocab = text.dim({"vocab_size"}, 32000)};
  if (text.flag({"tie_word_embeddings"}, false)) head.tied_weight = (model / "language_model" / "embed_tokens")("weight");
  return lm_head(b, out, "LM_Head", head);
}

}  // namespace
}  // namespace janus_impl

const Family& janus_family() {
  static const Family family{"janus", "models/janus/modeling_janus.py",
                             classes("Janus", {heads::VisionLanguageGeneration}), janus_impl::build};
  return family;
}

}  // namespace neurarch::families
