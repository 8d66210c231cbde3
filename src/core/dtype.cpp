#include "core/dtype.hpp"

#include <array>
#include <utility>

namespace neurarch {
namespace {
struct DTypeRow {
  DType dtype;
  std::string_view safetensors;
  std::string_view torch;
  int bytes;
};
constexpr std::array<DTypeRow, 15> kDTypes{{
    {DType::F64, "F64", "float64", 8},
    {DType::F32, "F32", "float32", 4},
    {DType::F16, "F16", "float16", 2},
    {DType::BF16, "BF16", "bfloat16", 2},
    {DType::I64, "I64", "int64", 8},
    {DType::I32, "I32", "int32", 4},
    {DType::I16, "I16", "int16", 2},
    {DType::I8, "I8", "int8", 1},
    {DType::U8, "U8", "uint8", 1},
    {DType::Bool, "BOOL", "bool", 1},
    {DType::F8E4M3, "F8_E4M3", "float8_e4m3fn", 1},
    {DType::F8E5M2, "F8_E5M2", "float8_e5m2", 1},
    {DType::U16, "U16", "uint16", 2},
    {DType::U32, "U32", "uint32", 4},
    {DType::U64, "U64", "uint64", 8},
}};
}  // namespace

std::optional<DType> dtype_from_safetensors(std::string_view name) {
  for (const auto& row : kDTypes)
    if (row.safetensors == name) return row.dtype;
  return std::nullopt;
}

std::string_view dtype_name(DType d) {
  for (const auto& row : kDTypes)
    if (row.dtype == d) return row.safetensors;
  return "?";
}

int dtype_bytes(DType d) {
  for (const auto& row : kDTypes)
    if (row.dtype == d) return row.bytes;
  return 0;
}

std::optional<DType> dtype_from_torch(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  if (name == "float") return DType::F32;
  if (name == "half") return DType::F16;
  for (const auto& row : kDTypes)
    if (row.torch == name) return row.dtype;
  return std::nullopt;
}

}  // namespace neurarch
