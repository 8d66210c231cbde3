#pragma once
// Every constant a rule compares against, with where it comes from. Kept as a C++ table (not a
// data file) so the verifier needs nothing at runtime; change a value here and its test together.
#include <cstdint>
#include <string_view>

namespace neurarch::lint::limits {

// NVIDIA, "Matrix Multiplication Background User's Guide", Tensor Core Requirements: FP16/BF16
// GEMMs run best when M, N, K are multiples of 8 elements (16 bytes); on A100 and later, multiples
// of 64 elements (128 bytes) avoid tile-quantisation waste. The "Linear/Fully-Connected Layers
// User's Guide" (Transformer case study, Fig. 7) shows the vocabulary projection markedly slower
// when the vocabulary is not a multiple of 8. Megatron-LM and nanoGPT pad GPT-2's 50257 to 50304.
inline constexpr std::int64_t kTensorCoreMultiple = 8;
inline constexpr std::int64_t kTensorCoreTile = 64;

// PyTorch scaled_dot_product_attention (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp):
// the memory-efficient kernel needs head_dim to be a multiple of 8 for half types
// (minimum_gemm_alignment = 128 bits / 16), and the flash kernel refuses head_dim > 256.
inline constexpr std::int64_t kSdpaHeadDimMultiple = 8;
inline constexpr std::int64_t kFlashMaxHeadDim = 256;

// IEEE 754 binary16: the smallest positive subnormal is 2^-24; anything below half of it rounds
// to zero when stored as float16.
inline constexpr double kFp16SmallestSubnormal = 5.960464477539063e-08;

// A norm eps of 0.1 or more is no longer a guard against division by zero: it is comparable to
// the variance of normalised activations and changes the output. Published configs use 1e-12..1e-5.
inline constexpr double kNormEpsMax = 0.1;

// Our choice, not a published threshold: depth-scaled init (GPT-2 paper, Radford et al. 2019,
// section 2.3: residual weights scaled by 1/sqrt(N)) matters more as depth grows; at 24 layers the
// factor 1/sqrt(2N) is 0.144, i.e. an unscaled init leaves residual branches ~7x larger.
inline constexpr std::int64_t kDeepStackLayers = 24;

// RoFormer (Su et al. 2021): dimension pair i rotates with wavelength 2*pi*theta^(2i/d); the
// slowest pair (i = d/2 - 1) has the longest wavelength. Positions past it alias the slowest
// pair; Men et al. 2024 ("Base of RoPE Bounds Context Length", arXiv:2405.14591) derive a
// stricter lower bound on theta, so this check is a floor that no trained context should break.
inline constexpr double kDefaultRopeTheta = 10000.0;

}  // namespace neurarch::lint::limits
