#pragma once
// Writes real safetensors files for tests: a valid header and a zero-filled (sparse) data section
// of the exact size the offsets promise, so multi-gigabyte layouts cost nothing on disk.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neurarch::testing {

struct FakeTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::string dtype = "F32";
};

inline int fake_dtype_bytes(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64") return 8;
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 1;
}

inline void write_safetensors(const std::filesystem::path& file, const std::vector<FakeTensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    std::uint64_t n = static_cast<std::uint64_t>(fake_dtype_bytes(t.dtype));
    for (auto d : t.shape) n *= static_cast<std::uint64_t>(d);
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  header["__metadata__"] = {{"format", "pt"}};
  std::string text = header.dump();
  std::uint64_t len = text.size();
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>((len >> (8 * i)) & 0xFF));
    f << text;
  }
  std::filesystem::resize_file(file, 8 + len + offset);
}

}  // namespace neurarch::testing
