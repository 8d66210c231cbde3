#pragma once
// Tensor element types as safetensors names them (F32, BF16, ...), with their byte widths.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neurarch {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool, F8E4M3, F8E5M2, U16, U32, U64 };

/// "F32" -> DType::F32; nullopt for names safetensors does not define.
std::optional<DType> dtype_from_safetensors(std::string_view name);
/// DType::BF16 -> "BF16"
std::string_view dtype_name(DType d);
/// Bytes per element, fractional types excluded: BF16 -> 2.
int dtype_bytes(DType d);
/// "float32", "bfloat16", "torch.float16" (a config's torch_dtype) -> DType.
std::optional<DType> dtype_from_torch(std::string_view name);

}  // namespace neurarch
